import { toIso, toIsoOrNull } from '../../lib/time.js';
import type { DiscountRow } from './repository.js';
import type { DiscountView } from './schemas.js';

export function discountView(row: DiscountRow): DiscountView {
  return {
    id: row.id,
    code: row.code,
    type: row.type,
    value: row.value,
    minSubtotal: row.minSubtotal,
    startsAt: toIsoOrNull(row.startsAt),
    endsAt: toIsoOrNull(row.endsAt),
    usageLimit: row.usageLimit,
    usageCount: row.usageCount,
    oncePerCustomer: row.oncePerCustomer,
    products: row.products,
    collections: row.collections,
    active: row.active,
    createdAt: toIso(row.createdAt),
    updatedAt: toIsoOrNull(row.updatedAt),
  };
}
