CREATE TABLE "client_assertion_jtis" (
	"client_id" text NOT NULL,
	"jti" text NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	CONSTRAINT "client_assertion_jtis_client_id_jti_pk" PRIMARY KEY("client_id","jti")
);
--> statement-breakpoint
ALTER TABLE "oauth_clients" DROP CONSTRAINT "oauth_clients_auth_method";--> statement-breakpoint
ALTER TABLE "oauth_clients" ALTER COLUMN "secret_hash" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "oauth_clients" ADD COLUMN "jwks" jsonb;--> statement-breakpoint
ALTER TABLE "oauth_clients" ADD COLUMN "jwks_uri" text;--> statement-breakpoint
CREATE INDEX "client_assertion_jtis_expires_idx" ON "client_assertion_jtis" USING btree ("expires_at");--> statement-breakpoint
ALTER TABLE "oauth_clients" ADD CONSTRAINT "oauth_clients_credentials" CHECK (case when "oauth_clients"."token_endpoint_auth_method" = 'private_key_jwt' then "oauth_clients"."secret_hash" is null and (("oauth_clients"."jwks" is null) <> ("oauth_clients"."jwks_uri" is null)) else "oauth_clients"."secret_hash" is not null end);--> statement-breakpoint
ALTER TABLE "oauth_clients" ADD CONSTRAINT "oauth_clients_auth_method" CHECK ("oauth_clients"."token_endpoint_auth_method" in ('client_secret_basic', 'client_secret_post', 'private_key_jwt'));