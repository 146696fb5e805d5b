-- Hand-written (drizzle-kit cannot express triggers): each feed's names, one row per name of
-- feeds.categories, tags and events, and one row of kind '*' for a feed with none (it holds
-- every video of its organization). A write finds the feeds a video belongs to by the video's
-- names on the primary key, reading those feeds' rows only, not every feed of the organization
-- (domain/feeds/membership.ts). Kept by triggers on feeds; a deleted feed's rows go by cascade.
CREATE TABLE `feed_names` (
	`organization_id` integer NOT NULL,
	`kind` text NOT NULL,
	`name` text NOT NULL,
	`feed_id` integer NOT NULL,
	PRIMARY KEY(`organization_id`, `kind`, `name`, `feed_id`),
	FOREIGN KEY (`feed_id`) REFERENCES `feeds`(`id`) ON UPDATE no action ON DELETE cascade
) WITHOUT ROWID;
--> statement-breakpoint
CREATE INDEX `feed_names_feed_idx` ON `feed_names` (`feed_id`);
--> statement-breakpoint
INSERT INTO `feed_names` (organization_id, kind, name, feed_id)
	SELECT f.organization_id, 'category', j.value, f.id FROM `feeds` f, json_each(f.categories) j
	UNION SELECT f.organization_id, 'tag', j.value, f.id FROM `feeds` f, json_each(f.tags) j
	UNION SELECT f.organization_id, 'event', j.value, f.id FROM `feeds` f, json_each(f.events) j
	UNION SELECT f.organization_id, '*', '', f.id FROM `feeds` f
		WHERE json_array_length(f.categories) + json_array_length(f.tags) + json_array_length(f.events) = 0;
--> statement-breakpoint
CREATE TRIGGER `feeds_names_insert` AFTER INSERT ON `feeds` BEGIN
	INSERT INTO `feed_names` (organization_id, kind, name, feed_id)
		SELECT new.organization_id, 'category', value, new.id FROM json_each(new.categories)
		UNION SELECT new.organization_id, 'tag', value, new.id FROM json_each(new.tags)
		UNION SELECT new.organization_id, 'event', value, new.id FROM json_each(new.events)
		UNION SELECT new.organization_id, '*', '', new.id
			WHERE json_array_length(new.categories) + json_array_length(new.tags) + json_array_length(new.events) = 0;
END;
--> statement-breakpoint
CREATE TRIGGER `feeds_names_update` AFTER UPDATE OF organization_id, categories, tags, events ON `feeds` BEGIN
	DELETE FROM `feed_names` WHERE feed_id = new.id;
	INSERT INTO `feed_names` (organization_id, kind, name, feed_id)
		SELECT new.organization_id, 'category', value, new.id FROM json_each(new.categories)
		UNION SELECT new.organization_id, 'tag', value, new.id FROM json_each(new.tags)
		UNION SELECT new.organization_id, 'event', value, new.id FROM json_each(new.events)
		UNION SELECT new.organization_id, '*', '', new.id
			WHERE json_array_length(new.categories) + json_array_length(new.tags) + json_array_length(new.events) = 0;
END;
