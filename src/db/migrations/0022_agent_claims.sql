CREATE TABLE "agent_claims" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"user_code_hash" text NOT NULL,
	"requested_scopes" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"granted_scopes" text,
	"user_id" uuid,
	"subject" text,
	"wrong_codes" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"last_polled_at" timestamp with time zone,
	"decided_at" timestamp with time zone,
	"revoked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "agent_claims_status" CHECK ("agent_claims"."status" in ('pending', 'approved', 'denied'))
);
--> statement-breakpoint
ALTER TABLE "agent_claims" ADD CONSTRAINT "agent_claims_client_id_oauth_clients_client_id_fk" FOREIGN KEY ("client_id") REFERENCES "public"."oauth_clients"("client_id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "agent_claims" ADD CONSTRAINT "agent_claims_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "agent_claims_one_in_force" ON "agent_claims" USING btree ("client_id") WHERE "agent_claims"."status" = 'approved' and "agent_claims"."revoked_at" is null;--> statement-breakpoint
CREATE INDEX "agent_claims_user" ON "agent_claims" USING btree ("user_id");