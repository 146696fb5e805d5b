CREATE TABLE `stats_moves` (
	`organization_id` integer PRIMARY KEY NOT NULL,
	`from_shard` integer NOT NULL,
	`to_shard` integer NOT NULL,
	`phase` text NOT NULL,
	`settled_before` text NOT NULL,
	`cursor` text,
	`rows_copied` integer DEFAULT 0 NOT NULL,
	`rows_dropped` integer DEFAULT 0 NOT NULL,
	`started_at` text NOT NULL,
	`switched_at` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
ALTER TABLE `organizations` ADD `stats_shard` integer DEFAULT 0 NOT NULL;