ALTER TABLE `networks` ADD `catalog_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `catalog_version` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `stats_version` integer DEFAULT 0 NOT NULL;