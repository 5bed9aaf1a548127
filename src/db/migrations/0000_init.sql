CREATE TABLE "catalogue_state" (
	"id" smallint PRIMARY KEY DEFAULT 1 NOT NULL,
	"version" integer DEFAULT 0 NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "centres" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"slug" text NOT NULL,
	"name" text NOT NULL,
	"address" text NOT NULL,
	"city" text NOT NULL,
	"postal_code" text NOT NULL,
	"dept_code" text NOT NULL,
	"lat" double precision NOT NULL,
	"lng" double precision NOT NULL,
	"agrement_number" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "centres_slug_unique" UNIQUE("slug"),
	CONSTRAINT "centres_agrement_number_unique" UNIQUE("agrement_number"),
	CONSTRAINT "centres_agrement_number_format" CHECK ("centres"."agrement_number" ~ '^R[0-9]{2}[0-9A-Z]{3}[0-9]{5}$'),
	CONSTRAINT "centres_lat_range" CHECK ("centres"."lat" between -90 and 90),
	CONSTRAINT "centres_lng_range" CHECK ("centres"."lng" between -180 and 180)
);
--> statement-breakpoint
CREATE TABLE "stage_sessions" (
	"id" uuid PRIMARY KEY DEFAULT gen_random_uuid() NOT NULL,
	"centre_id" uuid NOT NULL,
	"course_number" text NOT NULL,
	"day1" date NOT NULL,
	"day2" date NOT NULL,
	"start_time" text NOT NULL,
	"end_time" text NOT NULL,
	"price_cents" integer NOT NULL,
	"capacity" smallint NOT NULL,
	"spots_available" smallint NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "stage_sessions_course_number_unique" UNIQUE("course_number"),
	CONSTRAINT "stage_sessions_consecutive_days" CHECK ("stage_sessions"."day2" = "stage_sessions"."day1" + 1),
	CONSTRAINT "stage_sessions_time_format" CHECK ("stage_sessions"."start_time" ~ '^[0-2][0-9]:[0-5][0-9]$' and "stage_sessions"."end_time" ~ '^[0-2][0-9]:[0-5][0-9]$'),
	CONSTRAINT "stage_sessions_price_positive" CHECK ("stage_sessions"."price_cents" > 0),
	CONSTRAINT "stage_sessions_capacity" CHECK ("stage_sessions"."capacity" between 1 and 40),
	CONSTRAINT "stage_sessions_spots" CHECK ("stage_sessions"."spots_available" between 0 and "stage_sessions"."capacity")
);
--> statement-breakpoint
ALTER TABLE "stage_sessions" ADD CONSTRAINT "stage_sessions_centre_id_centres_id_fk" FOREIGN KEY ("centre_id") REFERENCES "public"."centres"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "centres_dept_code_idx" ON "centres" USING btree ("dept_code");--> statement-breakpoint
CREATE INDEX "stage_sessions_day1_idx" ON "stage_sessions" USING btree ("day1");--> statement-breakpoint
CREATE INDEX "stage_sessions_centre_idx" ON "stage_sessions" USING btree ("centre_id");