/**
 * Payment routes: providers (admin), payments of an order (the order's customer, server, admin),
 * and Stripe's webhooks (no token: the Stripe-Signature over the raw body is the credential).
 */
import Stripe from 'stripe';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { storeOf } from '../../plugins/authentication.js';
import { registerCommand } from '../../plugins/commands.js';
import { AppError } from '../../lib/app-error.js';
import { errorResponses } from '../../lib/http-schemas.js';
import type { PaymentsRuntime } from './runtime.js';
import * as repo from './repository.js';
import * as S from './schemas.js';
import type { Intent } from './stripe-client.js';
import { paymentView, providerView } from './views.js';

declare module 'fastify' {
  interface FastifyInstance {
    payments: PaymentsRuntime;
  }
}

const adminTags = ['admin'];
const tags = ['payments'];
/** Stripe's own tolerance for a signature's timestamp. */
const SIGNATURE_TOLERANCE_SECONDS = 300;
const PAYMENT_EVENTS = ['payment.created', 'payment.succeeded', 'payment.failed', 'payment.refunded', 'order.paid'] as const;

const paymentRoutes: FastifyPluginAsyncTypebox = async (app) => {
  app.get(
    '/v1/admin/payment-providers',
    { schema: { operationId: 'adminListPaymentProviders', tags: adminTags, summary: "List the store's payment providers", response: { 200: S.PaymentProviderList, ...errorResponses([]) } } },
    async (request) => ({ paymentProviders: (await repo.listProviders(app.db, storeOf(request))).map(providerView) }),
  );
  registerCommand(app, {
    method: 'PUT', url: '/v1/admin/payment-providers/manual', operationId: 'adminPutManualProvider', tags: adminTags, summary: 'Enable the manual provider',
    description: 'Bank transfer, cash on delivery: the shopper sees `instructions`, the shop records the payment (PATCH the order to PAID).',
    body: S.ManualProviderBody, status: 200, response: S.PaymentProviderEnvelope, errors: [],
    run: async ({ store, body }, { tx }) => ({
      paymentProvider: providerView(await repo.saveProvider(tx, { store, name: 'manual', instructions: body.instructions ?? '', captureMethod: 'automatic' })),
    }),
  });
  registerCommand(app, {
    method: 'PUT', url: '/v1/admin/payment-providers/stripe', operationId: 'adminPutStripeProvider', tags: adminTags, summary: 'Enable Stripe',
    description:
      'The keys are stored encrypted (SECRETS_KEY) and never answered. Saving calls nobody: a wrong key shows as 502 PAYMENT_PROVIDER_ERROR at the first payment. ' +
      'With DATABASE_URL and no SECRETS_KEY it is 409 CONFLICT.',
    body: S.StripeProviderBody, status: 200, response: S.PaymentProviderEnvelope, errors: ['CONFLICT'],
    run: async ({ store, body }, { tx }) => {
      const secrets = app.payments.secrets;
      app.payments.forgetWebhookSecret(store);
      const row = await repo.saveProvider(tx, {
        store, name: 'stripe', captureMethod: body.captureMethod ?? 'automatic', publishableKey: body.publishableKey,
        secretKeyLast4: body.secretKey.slice(-4), secretKeyEncrypted: secrets.encrypt(body.secretKey), webhookSecretEncrypted: secrets.encrypt(body.webhookSecret),
      });
      return { paymentProvider: providerView(row) };
    },
  });
  registerCommand(app, {
    method: 'DELETE', url: '/v1/admin/payment-providers/:name', operationId: 'adminDisablePaymentProvider', tags: adminTags, summary: 'Disable a payment provider',
    description: 'Its settings are kept (PUT enables it again); payments already made keep being applied.',
    params: S.ProviderParams, status: 200, response: S.PaymentProviderEnvelope, errors: ['NOT_FOUND'],
    run: async ({ store, params }, { tx }) => {
      const row = await repo.disableProvider(tx, store, params.name);
      app.payments.forgetWebhookSecret(store);
      if (!row) throw new AppError('NOT_FOUND', `the ${params.name} provider is not set up`);
      return { paymentProvider: providerView(row) };
    },
  });

  registerCommand(app, {
    method: 'POST', url: '/v1/:customer/orders/:id/payments', operationId: 'createPayment', tags, summary: "Pay an order's balance",
    description:
      '201 with a new payment of the unpaid balance; 200 with the pending payment of that provider when there is one. `stripe` answers the intent\'s `clientSecret` for Stripe.js. ' +
      'Not CREATED or nothing left to pay: 409 ORDER_NOT_PAYABLE; a provider the store has not enabled: 422; Stripe refusing or unreachable: 502, and nothing is left pending.',
    params: S.OrderPaymentParams, body: S.CreatePaymentBody, status: 201, response: S.PaymentEnvelope,
    errors: ['NOT_FOUND', 'ORDER_NOT_PAYABLE', 'PAYMENT_PROVIDER_NOT_ENABLED', 'PAYMENT_PROVIDER_ERROR'], events: PAYMENT_EVENTS,
    perform: async ({ store, params, body }, { answerWith, actor }) => {
      const { payment, created } = await app.payments.createPayment(store, params.customer, params.id, body.provider, actor);
      answerWith(created ? 201 : 200);
      return { payment: paymentView(payment) };
    },
  });
  registerCommand(app, {
    method: 'POST', url: '/v1/:customer/orders/:id/payments/:paymentId/sync', operationId: 'syncPayment', tags, summary: 'Ask the provider for a payment now',
    description: 'Asks Stripe for the intent and applies what it says exactly as its webhook would (the storefront calls it when the shopper comes back from paying).',
    params: S.SyncPaymentParams, status: 200, response: S.PaymentEnvelope, errors: ['NOT_FOUND', 'PAYMENT_PROVIDER_ERROR', 'PAYMENT_PROVIDER_NOT_ENABLED'], events: PAYMENT_EVENTS,
    perform: async ({ store, params }) => ({ payment: paymentView(await app.payments.syncPayment(store, params.customer, params.id, params.paymentId)) }),
  });

  // The signature is over the exact bytes Stripe sent: this route keeps the body raw.
  await app.register(async (raw) => {
    raw.removeContentTypeParser('application/json');
    raw.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: 1024 * 1024 }, (_request, body, done) => done(null, body));
    registerCommand(raw, {
      method: 'POST', url: '/v1/payment-webhooks/stripe/:store', operationId: 'receiveStripeWebhook', tags, summary: "Stripe's webhooks",
      description:
        'Verified with the store\'s webhook secret (Stripe-Signature, 300 s tolerance): any failure is 400 and changes nothing. Each Stripe event is applied once, in any order. ' +
        '200 once recorded; 503 when the database cannot be reached, so that Stripe retries.',
      params: S.StripeWebhookParams, status: 200, response: S.WebhookReceipt, errors: ['PAYMENT_PROVIDER_ERROR'], events: PAYMENT_EVENTS,
      perform: async ({ params, body, headers }) => {
        const store = params.store;
        const signature = headers['stripe-signature'];
        // A database that does not answer is 503 (Stripe retries); only a store without Stripe is 400.
        const secret = await app.payments.webhookSecretOf(store);
        if (!secret || typeof signature !== 'string' || !Buffer.isBuffer(body)) throw new AppError('VALIDATION_FAILED', 'the webhook could not be verified');
        let event: Stripe.Event;
        try {
          event = Stripe.webhooks.constructEvent(body, signature, secret, SIGNATURE_TOLERANCE_SECONDS);
        } catch {
          throw new AppError('VALIDATION_FAILED', 'the webhook could not be verified');
        }
        switch (event.type) {
          case 'payment_intent.succeeded':
          case 'payment_intent.amount_capturable_updated':
          case 'payment_intent.canceled':
          case 'payment_intent.payment_failed':
            await app.payments.applyIntent(store, event.data.object as Intent, event.id, event.type === 'payment_intent.payment_failed');
            break;
          case 'charge.refunded':
            await app.payments.applyRefund(store, event.data.object, event.id);
            break;
          default:
            break;
        }
        return { received: true };
      },
    });
  });
};

export default paymentRoutes;
