CREATE TABLE "api_keys" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"role" text NOT NULL,
	"centre_id" uuid,
	"secret_hash" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"revoked_at" timestamp with time zone,
	CONSTRAINT "api_keys_role" CHECK ("api_keys"."role" in ('admin', 'partner')),
	CONSTRAINT "api_keys_partner_centre" CHECK (("api_keys"."role" = 'partner') = ("api_keys"."centre_id" is not null))
);
--> statement-breakpoint
CREATE TABLE "catalogue_changes" (
	"version" integer NOT NULL,
	"entity" text NOT NULL,
	"id" uuid,
	"changed_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "catalogue_changes_entity" CHECK ("catalogue_changes"."entity" in ('centre', 'session', 'reset'))
);
--> statement-breakpoint
CREATE TABLE "idempotency_keys" (
	"api_key_id" text NOT NULL,
	"key" text NOT NULL,
	"request_hash" text NOT NULL,
	"status" smallint NOT NULL,
	"body" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "idempotency_keys_api_key_id_key_pk" PRIMARY KEY("api_key_id","key")
);
--> statement-breakpoint
ALTER TABLE "centres" ADD COLUMN "email" text;--> statement-breakpoint
ALTER TABLE "centres" ADD COLUMN "phone" text;--> statement-breakpoint
ALTER TABLE "stage_sessions" ADD COLUMN "status" text DEFAULT 'scheduled' NOT NULL;--> statement-breakpoint
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_centre_id_centres_id_fk" FOREIGN KEY ("centre_id") REFERENCES "public"."centres"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "catalogue_changes_version_idx" ON "catalogue_changes" USING btree ("version");--> statement-breakpoint
CREATE INDEX "idempotency_keys_created_idx" ON "idempotency_keys" USING btree ("created_at");--> statement-breakpoint
ALTER TABLE "stage_sessions" ADD CONSTRAINT "stage_sessions_status" CHECK ("stage_sessions"."status" in ('scheduled', 'cancelled'));