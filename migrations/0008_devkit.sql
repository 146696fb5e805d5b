CREATE TABLE `upload_parts` (
	`content_id` integer NOT NULL,
	`part_number` integer NOT NULL,
	`size` integer NOT NULL,
	`etag` text NOT NULL,
	`uploaded_at` text NOT NULL,
	PRIMARY KEY(`content_id`, `part_number`),
	FOREIGN KEY (`content_id`) REFERENCES `contents`(`id`) ON UPDATE no action ON DELETE cascade
);
