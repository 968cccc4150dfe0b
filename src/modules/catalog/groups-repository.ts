/** SQL of product groups: a group's visible products. */
import { sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.js';
import { productColumns, visibleProduct } from './visibility.js';
import { productCounts, type ProductWithCounts } from './repository.js';

/** The visible products of a group with their counts, oldest first (the group index finds them). */
export async function listGroupProducts(db: Executor, store: string, group: string): Promise<ProductWithCounts[]> {
  return queryRows<ProductWithCounts>(
    db,
    sql`select ${productColumns('p')}, ${productCounts} from products p
        where p.store = ${store} and p.group_slug = ${group} and p.deleted_at is null and ${visibleProduct('p')}
        order by p.created_at, p.id`,
  );
}
