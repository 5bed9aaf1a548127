ALTER TABLE "centres" ADD COLUMN "approved_on" date;--> statement-breakpoint
ALTER TABLE "centres" ADD COLUMN "suspended_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "centres" ADD COLUMN "suspension_reason" text;