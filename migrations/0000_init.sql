CREATE TABLE `api_tokens` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`token_hash` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_token_hash_unique` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE INDEX `api_tokens_org_idx` ON `api_tokens` (`organization_id`);--> statement-breakpoint
CREATE TABLE `content_labels` (
	`label_id` integer NOT NULL,
	`content_id` integer NOT NULL,
	PRIMARY KEY(`label_id`, `content_id`),
	FOREIGN KEY (`label_id`) REFERENCES `labels`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`content_id`) REFERENCES `contents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `content_labels_content_idx` ON `content_labels` (`content_id`);--> statement-breakpoint
CREATE TABLE `contents` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`sub_organization_id` integer,
	`content_key` text NOT NULL,
	`title` text DEFAULT '' NOT NULL,
	`description` text DEFAULT '' NOT NULL,
	`thumbnail_url` text,
	`categories` text DEFAULT '[]' NOT NULL,
	`tags` text DEFAULT '[]' NOT NULL,
	`events` text DEFAULT '[]' NOT NULL,
	`custom_fields` text DEFAULT '[]' NOT NULL,
	`translations` text DEFAULT '[]' NOT NULL,
	`subtitles` text DEFAULT '[]' NOT NULL,
	`service_categories` text DEFAULT '[]' NOT NULL,
	`is_live` integer DEFAULT false NOT NULL,
	`url_hls` text,
	`removed` integer DEFAULT false NOT NULL,
	`status` text DEFAULT 'uploading' NOT NULL,
	`rejection_reason` text,
	`content_size` integer NOT NULL,
	`suffix` text DEFAULT '.mp4' NOT NULL,
	`media_key` text NOT NULL,
	`upload_id` text,
	`chunk_size` integer NOT NULL,
	`thumbnail_uploaded` integer DEFAULT false NOT NULL,
	`duration` real,
	`width` integer,
	`height` integer,
	`video_codec` text,
	`audio_codec` text,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	`published_at` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`sub_organization_id`) REFERENCES `sub_organizations`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contents_content_key_unique` ON `contents` (`content_key`);--> statement-breakpoint
CREATE INDEX `contents_org_status_published_idx` ON `contents` (`organization_id`,`status`,`published_at`);--> statement-breakpoint
CREATE INDEX `contents_sub_org_idx` ON `contents` (`sub_organization_id`);--> statement-breakpoint
CREATE TABLE `labels` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `labels_org_kind_name_idx` ON `labels` (`organization_id`,`kind`,`name`);--> statement-breakpoint
CREATE TABLE `networks` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `networks_name_unique` ON `networks` (`name`);--> statement-breakpoint
CREATE TABLE `organizations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_key` text NOT NULL,
	`name` text NOT NULL,
	`sync_code` text NOT NULL,
	`api_key` text NOT NULL,
	`api_secret_hash` text NOT NULL,
	`plan` text DEFAULT 'standard' NOT NULL,
	`entitlements` text DEFAULT '[]' NOT NULL,
	`network_id` integer,
	`created_at` text NOT NULL,
	FOREIGN KEY (`network_id`) REFERENCES `networks`(`id`) ON UPDATE no action ON DELETE set null
);
--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_organization_key_unique` ON `organizations` (`organization_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_sync_code_unique` ON `organizations` (`sync_code`);--> statement-breakpoint
CREATE UNIQUE INDEX `organizations_api_key_unique` ON `organizations` (`api_key`);--> statement-breakpoint
CREATE TABLE `sub_organizations` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`name` text NOT NULL,
	`mmi_key` text NOT NULL,
	`created_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `sub_organizations_mmi_key_unique` ON `sub_organizations` (`mmi_key`);--> statement-breakpoint
CREATE INDEX `sub_organizations_org_idx` ON `sub_organizations` (`organization_id`);