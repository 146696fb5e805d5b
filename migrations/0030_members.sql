-- Hand-written: people of an organization (members with roles, invitations, passkeys), personal
-- and application tokens, sessions per member, and the audit log (docs/console.md "Members and
-- roles"). api_tokens, console_sessions and organizations change by ADD COLUMN only
-- (docs/migrations.md rule 2: organizations must never be rebuilt).
CREATE TABLE `members` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` integer NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`role` text NOT NULL,
	`status` text DEFAULT 'active' NOT NULL,
	`created_at` text NOT NULL,
	`updated_at` text NOT NULL,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `members_org_email_idx` ON `members` (`organization_id`,`email`);--> statement-breakpoint
CREATE INDEX `members_email_idx` ON `members` (`email`);--> statement-breakpoint
CREATE TABLE `member_invitations` (
	`id` text PRIMARY KEY NOT NULL,
	`organization_id` integer NOT NULL,
	`kind` text NOT NULL,
	`email` text NOT NULL,
	`role` text NOT NULL,
	`member_id` text,
	`token_hash` text NOT NULL,
	`invited_by` text NOT NULL,
	`created_at` text NOT NULL,
	`expires_at` text NOT NULL,
	`accepted_at` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade,
	FOREIGN KEY (`member_id`) REFERENCES `members`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE UNIQUE INDEX `member_invitations_token_hash_unique` ON `member_invitations` (`token_hash`);--> statement-breakpoint
CREATE INDEX `member_invitations_org_idx` ON `member_invitations` (`organization_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `member_invitations_expires_idx` ON `member_invitations` (`expires_at`);--> statement-breakpoint
CREATE TABLE `passkeys` (
	`id` text PRIMARY KEY NOT NULL,
	`member_id` text NOT NULL,
	`public_key` text NOT NULL,
	`algorithm` integer NOT NULL,
	`counter` integer DEFAULT 0 NOT NULL,
	`transports` text DEFAULT '[]' NOT NULL,
	`name` text NOT NULL,
	`created_at` text NOT NULL,
	`last_used_at` text,
	FOREIGN KEY (`member_id`) REFERENCES `members`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `passkeys_member_idx` ON `passkeys` (`member_id`);--> statement-breakpoint
CREATE TABLE `auth_challenges` (
	`id` text PRIMARY KEY NOT NULL,
	`challenge` text NOT NULL,
	`purpose` text NOT NULL,
	`subject` text,
	`expires_at` text NOT NULL
);
--> statement-breakpoint
CREATE INDEX `auth_challenges_expires_idx` ON `auth_challenges` (`expires_at`);--> statement-breakpoint
CREATE TABLE `audit_log` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`organization_id` integer NOT NULL,
	`at` text NOT NULL,
	`actor_type` text NOT NULL,
	`actor_id` text NOT NULL,
	`actor_name` text NOT NULL,
	`member_id` text,
	`action` text NOT NULL,
	`object_type` text NOT NULL,
	`object_id` text,
	`changes` text DEFAULT '[]' NOT NULL,
	`address` text,
	FOREIGN KEY (`organization_id`) REFERENCES `organizations`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `audit_log_org_idx` ON `audit_log` (`organization_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_log_member_idx` ON `audit_log` (`organization_id`,`member_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_log_object_idx` ON `audit_log` (`organization_id`,`object_type`,`object_id`,`id`);--> statement-breakpoint
CREATE INDEX `audit_log_at_idx` ON `audit_log` (`at`);--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `name` text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `kind` text DEFAULT 'organization' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `scope` text DEFAULT 'full' NOT NULL;--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `member_id` text REFERENCES members(id) ON DELETE cascade;--> statement-breakpoint
ALTER TABLE `api_tokens` ADD `expires_at` text;--> statement-breakpoint
CREATE INDEX `api_tokens_member_idx` ON `api_tokens` (`member_id`);--> statement-breakpoint
ALTER TABLE `console_sessions` ADD `id` text;--> statement-breakpoint
ALTER TABLE `console_sessions` ADD `member_id` text REFERENCES members(id) ON DELETE cascade;--> statement-breakpoint
ALTER TABLE `console_sessions` ADD `method` text DEFAULT 'key' NOT NULL;--> statement-breakpoint
ALTER TABLE `console_sessions` ADD `address` text;--> statement-breakpoint
CREATE INDEX `console_sessions_member_idx` ON `console_sessions` (`member_id`);--> statement-breakpoint
ALTER TABLE `organizations` ADD `key_sign_in` integer DEFAULT true NOT NULL;--> statement-breakpoint
UPDATE `api_tokens` SET `name` = 'organization token' WHERE `kind` = 'organization';
