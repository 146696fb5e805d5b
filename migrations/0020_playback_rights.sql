ALTER TABLE `contents` ADD `enforce_playback_windows` integer;--> statement-breakpoint
ALTER TABLE `organizations` ADD `enforce_playback_windows` integer DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `allowed_sites` text DEFAULT '[]' NOT NULL;--> statement-breakpoint
ALTER TABLE `organizations` ADD `referrer_required` integer DEFAULT false NOT NULL;