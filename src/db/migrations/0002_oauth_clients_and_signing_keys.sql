CREATE TABLE "oauth_clients" (
	"client_id" text PRIMARY KEY NOT NULL,
	"secret_hash" text NOT NULL,
	"client_name" text NOT NULL,
	"token_endpoint_auth_method" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "oauth_clients_auth_method" CHECK ("oauth_clients"."token_endpoint_auth_method" in ('client_secret_basic', 'client_secret_post'))
);
--> statement-breakpoint
CREATE TABLE "signing_keys" (
	"kid" text PRIMARY KEY NOT NULL,
	"alg" text DEFAULT 'ES256' NOT NULL,
	"private_jwk" jsonb NOT NULL,
	"public_jwk" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"retires_at" timestamp with time zone,
	CONSTRAINT "signing_keys_alg" CHECK ("signing_keys"."alg" = 'ES256')
);
--> statement-breakpoint
CREATE UNIQUE INDEX "signing_keys_one_active" ON "signing_keys" USING btree (("retires_at" is null)) WHERE "signing_keys"."retires_at" is null;