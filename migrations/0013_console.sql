CREATE TABLE `console_sessions` (
	`token_hash` text PRIMARY KEY NOT NULL,
	`organization_id` integer NOT NULL,
	`sub_organization_id` integer,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`sub_organization_id`) REFERENCES `sub_organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `console_sessions_org_idx` ON `console_sessions` (`organization_id`);--> statement-breakpoint
CREATE INDEX `console_sessions_expires_idx` ON `console_sessions` (`expires_at`);--> statement-breakpoint
CREATE INDEX `contents_library_idx` ON `contents` (`organization_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `contents_library_status_idx` ON `contents` (`organization_id`,`status`,`created_at`,`id`);