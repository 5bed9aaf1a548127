DROP INDEX "stage_sessions_day1_idx";--> statement-breakpoint
CREATE INDEX "stage_sessions_order_idx" ON "stage_sessions" USING btree ("day1","start_time" collate "C","price_cents","id");