-- Hand-written (a partial index over a column kept by triggers): a name's listing (E6
-- `tags=a`, a feed's names, E13's private tags) read in its own order. content_labels carries
-- its video's published_at, so the listable links of a label are walked newest first on an
-- index of their own, a page reading the rows it returns rather than every video of the label
-- (db/listing-plan.ts, "label walk"). Written with the link (db/content.ts); the triggers keep it
-- for links written without it and when a video's published_at changes.
ALTER TABLE `content_labels` ADD `published_at` text;--> statement-breakpoint
UPDATE `content_labels` SET published_at = (SELECT c.published_at FROM `contents` c WHERE c.id = content_labels.content_id);--> statement-breakpoint
CREATE INDEX `content_labels_listing_idx` ON `content_labels` (`label_id`,`published_at`,`content_id`) WHERE listable = 1;--> statement-breakpoint
CREATE TRIGGER `content_labels_published_insert` AFTER INSERT ON `content_labels`
WHEN new.published_at IS NULL AND (SELECT published_at FROM `contents` WHERE id = new.content_id) IS NOT NULL BEGIN
	UPDATE `content_labels` SET published_at = (SELECT published_at FROM `contents` WHERE id = new.content_id)
		WHERE label_id = new.label_id AND content_id = new.content_id;
END;
--> statement-breakpoint
CREATE TRIGGER `contents_label_published_update` AFTER UPDATE OF published_at ON `contents`
WHEN old.published_at IS NOT new.published_at BEGIN
	UPDATE `content_labels` SET published_at = new.published_at WHERE content_id = new.id;
END;
