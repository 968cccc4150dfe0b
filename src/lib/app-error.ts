/**
 * The one error type of the service and its code-to-status map. Modules throw AppErrors for
 * expected business failures; the error handler (plugins/errors.ts) turns them into problem+json.
 */
export const ERROR_STATUS = {
  VALIDATION_FAILED: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  CART_NOT_PENDING: 409,
  CART_EXPIRED: 409,
  INVALID_TRANSITION: 409,
  HOLD_LIMIT_REACHED: 409,
  IDEMPOTENCY_KEY_IN_USE: 409,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  PRODUCT_UNAVAILABLE: 422,
  INSUFFICIENT_STOCK: 422,
  ADDRESS_NOT_FOUND: 422,
  IDEMPOTENCY_KEY_REUSED: 422,
  COLLECTION_CYCLE: 422,
  WEBHOOK_URL_NOT_ALLOWED: 422,
  DISCOUNT_NOT_APPLICABLE: 422,
  SHIPPING_REQUIRED: 422,
  SHIPPING_NOT_AVAILABLE: 422,
  ORDER_NOT_PAYABLE: 409,
  PAYMENT_PROVIDER_NOT_ENABLED: 422,
  PAYMENT_PROVIDER_ERROR: 502,
  QUANTITY_LIMIT_EXCEEDED: 422,
  FULFILLMENT_EXCEEDS_ORDER: 422,
  RETURN_EXCEEDS_ORDER: 422,
  REFUND_EXCEEDS_PAYMENT: 422,
  REQUEST_TIMEOUT: 408,
  RATE_LIMITED: 429,
  INTERNAL: 500,
  SERVICE_UNAVAILABLE: 503,
} as const;

export type ErrorCode = keyof typeof ERROR_STATUS;

export const TITLES: Record<ErrorCode, string> = {
  VALIDATION_FAILED: 'The request is not valid',
  UNAUTHORIZED: 'Authentication required',
  FORBIDDEN: 'This token may not use this route',
  NOT_FOUND: 'Not found',
  CONFLICT: 'Conflict with the current state',
  CART_NOT_PENDING: 'The cart is no longer pending',
  CART_EXPIRED: 'The cart has expired',
  INVALID_TRANSITION: 'The status change is not allowed',
  HOLD_LIMIT_REACHED: 'The checkout hold cannot be renewed any longer',
  IDEMPOTENCY_KEY_IN_USE: 'A request with this Idempotency-Key is still running',
  PAYLOAD_TOO_LARGE: 'The request body is too large',
  UNSUPPORTED_MEDIA_TYPE: 'The request body must be JSON',
  PRODUCT_UNAVAILABLE: 'A product is not available',
  INSUFFICIENT_STOCK: 'Not enough stock',
  ADDRESS_NOT_FOUND: 'The address does not belong to this customer',
  IDEMPOTENCY_KEY_REUSED: 'The Idempotency-Key was used with another request',
  COLLECTION_CYCLE: 'The collection hierarchy would contain a cycle',
  WEBHOOK_URL_NOT_ALLOWED: 'The webhook URL is not allowed',
  DISCOUNT_NOT_APPLICABLE: 'The discount code does not apply',
  SHIPPING_REQUIRED: 'The order needs a shipping option',
  SHIPPING_NOT_AVAILABLE: 'The shipping option does not apply',
  ORDER_NOT_PAYABLE: 'The order cannot be paid',
  PAYMENT_PROVIDER_NOT_ENABLED: 'The store has not enabled this payment provider',
  PAYMENT_PROVIDER_ERROR: 'The payment provider refused the request or could not be reached',
  QUANTITY_LIMIT_EXCEEDED: 'More units than one order may have',
  FULFILLMENT_EXCEEDS_ORDER: 'More units than are left to fulfil',
  RETURN_EXCEEDS_ORDER: 'More units than the order has left to return',
  REFUND_EXCEEDS_PAYMENT: 'More than is left to refund',
  REQUEST_TIMEOUT: 'The request did not arrive in time',
  RATE_LIMITED: 'Too many requests',
  INTERNAL: 'Internal error',
  SERVICE_UNAVAILABLE: 'The service is unavailable',
};

export interface ProblemExtra {
  /** Field problems, or one `{productId, requested, available}` entry per product for stock. */
  errors?: unknown[];
  /** Why a discount code does not apply (DISCOUNT_NOT_APPLICABLE). */
  reason?: string;
  headers?: Record<string, string>;
  /** Why, for the log only: never in the answer. */
  cause?: string;
  /** What the log says instead of `detail`, when the detail carries what the caller sent (a discount code). */
  logDetail?: string;
}

export class AppError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    readonly detail: string,
    readonly extra: ProblemExtra = {},
  ) {
    super(detail, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'AppError';
    this.status = ERROR_STATUS[code];
  }
}
