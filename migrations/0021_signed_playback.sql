CREATE TABLE `playback_keys` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`key_id` text NOT NULL,
	`organization_id` integer NOT NULL,
	`algorithm` text NOT NULL,
	`secret` text,
	`public_key` text,
	`name` text DEFAULT '' NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `playback_keys_key_id_unique` ON `playback_keys` (`key_id`);--> statement-breakpoint
CREATE INDEX `playback_keys_org_idx` ON `playback_keys` (`organization_id`);--> statement-breakpoint
ALTER TABLE `contents` ADD `signed_playback` integer;--> statement-breakpoint
ALTER TABLE `organizations` ADD `signed_playback` integer DEFAULT false NOT NULL;