-- Hand-written: `feeds` gains columns by ALTER TABLE (drizzle-kit must never rebuild it, see
-- docs/migrations.md). A write marks the feeds of a video with the video's id (patch_ids) so the
-- publisher patches that video's entry in the files instead of rebuilding them from their
-- query; waiting_since is the first such mark since the feed's last build (a patch waits
-- FEED_PATCH_DELAY_SECONDS from it, so a burst of writes is one pass). feed_layouts holds what a
-- patch needs to find the entries in a feed's files: each entry's video, order and length.
-- Existing feeds have no layout: their first patch is a full rebuild, which writes one.
ALTER TABLE `feeds` ADD `patch_ids` text;--> statement-breakpoint
ALTER TABLE `feeds` ADD `waiting_since` text;--> statement-breakpoint
CREATE TABLE `feed_layouts` (
	`feed_id` integer PRIMARY KEY NOT NULL,
	`layout` text NOT NULL,
	FOREIGN KEY (`feed_id`) REFERENCES `feeds`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `feeds_org_dirty_idx` ON `feeds` (`organization_id`,`dirty_since`) WHERE dirty_since is not null;
