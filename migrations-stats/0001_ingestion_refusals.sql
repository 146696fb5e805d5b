ALTER TABLE `ingestion_days` ADD `viewers_folded` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `ingestion_days` ADD `events_refused` integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE `ingestion_days` ADD `events_refused_per_address` integer DEFAULT 0 NOT NULL;