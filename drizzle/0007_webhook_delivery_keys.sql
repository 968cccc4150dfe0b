DROP INDEX "webhook_deliveries_endpoint_event_key";--> statement-breakpoint
DROP INDEX "webhook_deliveries_event_idx";--> statement-breakpoint
CREATE UNIQUE INDEX "webhook_deliveries_event_endpoint_key" ON "webhook_deliveries" USING btree ("store","event_id","endpoint_id");