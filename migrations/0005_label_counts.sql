DROP INDEX `content_labels_content_idx`;--> statement-breakpoint
CREATE INDEX `content_labels_content_label_idx` ON `content_labels` (`content_id`,`label_id`);--> statement-breakpoint
ALTER TABLE `labels` ADD `videos` integer DEFAULT 0 NOT NULL;