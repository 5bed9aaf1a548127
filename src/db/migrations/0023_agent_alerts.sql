ALTER TABLE "alerts" ADD COLUMN "claim_id" text;--> statement-breakpoint
ALTER TABLE "alerts" ADD CONSTRAINT "alerts_claim_id_agent_claims_id_fk" FOREIGN KEY ("claim_id") REFERENCES "public"."agent_claims"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "alerts_claim_idx" ON "alerts" USING btree ("claim_id");