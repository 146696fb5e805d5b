CREATE TABLE `qoe_alert_settings` (
	`organization_id` integer PRIMARY KEY NOT NULL,
	`enabled` integer DEFAULT true NOT NULL,
	`min_views` integer NOT NULL,
	`failure_pct` real,
	`rebuffer_pct` real,
	`startup_ms_p90` integer,
	`per_video` integer DEFAULT true NOT NULL,
	`evaluated_at` text,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `qoe_alerts` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`scope` text NOT NULL,
	`opened_at` text NOT NULL,
	`closed_at` text,
	`opened` text NOT NULL,
	`closed` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `qoe_alerts_open_idx` ON `qoe_alerts` (`organization_id`,`scope`) WHERE closed_at is null;--> statement-breakpoint
CREATE INDEX `qoe_alerts_org_idx` ON `qoe_alerts` (`organization_id`,`opened_at`);
