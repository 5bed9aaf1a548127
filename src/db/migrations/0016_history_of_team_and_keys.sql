ALTER TABLE "change_history" DROP CONSTRAINT "change_history_entity";--> statement-breakpoint
ALTER TABLE "change_history" ALTER COLUMN "entity_id" SET DATA TYPE text;--> statement-breakpoint
ALTER TABLE "change_history" ADD CONSTRAINT "change_history_entity" CHECK ("change_history"."entity" in ('centre', 'session', 'reservation', 'member', 'api_key'));