CREATE TABLE "oauth_authorizations" (
	"id" text PRIMARY KEY NOT NULL,
	"client_id" text NOT NULL,
	"client_name" text,
	"redirect_uri" text NOT NULL,
	"state" text,
	"code_challenge" text NOT NULL,
	"requested_scopes" text NOT NULL,
	"resources" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"user_id" uuid,
	"claim_id" text,
	"code_hash" text,
	"code_expires_at" timestamp with time zone,
	"code_used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oauth_authorizations_status" CHECK ("oauth_authorizations"."status" in ('pending', 'approved', 'denied'))
);
--> statement-breakpoint
CREATE TABLE "oauth_refresh_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"claim_id" text NOT NULL,
	"client_id" text NOT NULL,
	"scope" text NOT NULL,
	"resources" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "oauth_clients" DROP CONSTRAINT "oauth_clients_auth_method";--> statement-breakpoint
ALTER TABLE "oauth_clients" DROP CONSTRAINT "oauth_clients_credentials";--> statement-breakpoint
ALTER TABLE "agent_claims" DROP CONSTRAINT "agent_claims_client_id_oauth_clients_client_id_fk";
--> statement-breakpoint
DROP INDEX "agent_claims_one_in_force";--> statement-breakpoint
ALTER TABLE "agent_claims" ALTER COLUMN "user_code_hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "agent_claims" ADD COLUMN "client_name" text;--> statement-breakpoint
ALTER TABLE "agent_claims" ADD COLUMN "via" text;--> statement-breakpoint
ALTER TABLE "oauth_clients" ADD COLUMN "grant_types" text;--> statement-breakpoint
ALTER TABLE "oauth_clients" ADD COLUMN "redirect_uris" jsonb;--> statement-breakpoint
ALTER TABLE "oauth_authorizations" ADD CONSTRAINT "oauth_authorizations_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_authorizations" ADD CONSTRAINT "oauth_authorizations_claim_id_agent_claims_id_fk" FOREIGN KEY ("claim_id") REFERENCES "public"."agent_claims"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "oauth_refresh_tokens" ADD CONSTRAINT "oauth_refresh_tokens_claim_id_agent_claims_id_fk" FOREIGN KEY ("claim_id") REFERENCES "public"."agent_claims"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "oauth_authorizations_code" ON "oauth_authorizations" USING btree ("code_hash");--> statement-breakpoint
CREATE INDEX "oauth_authorizations_expiry" ON "oauth_authorizations" USING btree ("expires_at");--> statement-breakpoint
CREATE INDEX "oauth_refresh_tokens_claim" ON "oauth_refresh_tokens" USING btree ("claim_id");--> statement-breakpoint
CREATE INDEX "oauth_refresh_tokens_expiry" ON "oauth_refresh_tokens" USING btree ("expires_at");--> statement-breakpoint
CREATE UNIQUE INDEX "agent_claims_one_in_force" ON "agent_claims" USING btree ("client_id") WHERE "agent_claims"."status" = 'approved' and "agent_claims"."revoked_at" is null and "agent_claims"."via" is null;--> statement-breakpoint
ALTER TABLE "agent_claims" ADD CONSTRAINT "agent_claims_via" CHECK ("agent_claims"."via" is null or "agent_claims"."via" = 'authorization_code');--> statement-breakpoint
ALTER TABLE "oauth_clients" ADD CONSTRAINT "oauth_clients_auth_method" CHECK ("oauth_clients"."token_endpoint_auth_method" in ('client_secret_basic', 'client_secret_post', 'private_key_jwt', 'none'));--> statement-breakpoint
ALTER TABLE "oauth_clients" ADD CONSTRAINT "oauth_clients_credentials" CHECK (case "oauth_clients"."token_endpoint_auth_method" when 'private_key_jwt' then "oauth_clients"."secret_hash" is null and (("oauth_clients"."jwks" is null) <> ("oauth_clients"."jwks_uri" is null)) when 'none' then "oauth_clients"."secret_hash" is null and "oauth_clients"."jwks" is null and "oauth_clients"."jwks_uri" is null else "oauth_clients"."secret_hash" is not null end);