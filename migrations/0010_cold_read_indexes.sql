-- Hand-written (drizzle-kit cannot express virtual tables or triggers): what keeps cold reads
-- bounded by what they return (docs/benchmarks.md, "Cold reads").

-- 1. content_labels.listable follows the video, so name counts read the listable links alone.
UPDATE `content_labels` SET listable = 1
	WHERE content_id IN (SELECT id FROM `contents` WHERE status = 'available' AND removed = 0);
--> statement-breakpoint
DROP TRIGGER `content_labels_count_insert`;
--> statement-breakpoint
CREATE TRIGGER `content_labels_count_insert` AFTER INSERT ON `content_labels`
WHEN EXISTS (SELECT 1 FROM `contents` WHERE id = new.content_id AND status = 'available' AND removed = 0) BEGIN
	UPDATE `labels` SET videos = videos + 1 WHERE id = new.label_id;
	UPDATE `content_labels` SET listable = 1 WHERE label_id = new.label_id AND content_id = new.content_id;
END;
--> statement-breakpoint
DROP TRIGGER `contents_label_count_update`;
--> statement-breakpoint
CREATE TRIGGER `contents_label_count_update` AFTER UPDATE OF status, removed ON `contents`
WHEN (old.status = 'available' AND old.removed = 0) <> (new.status = 'available' AND new.removed = 0) BEGIN
	UPDATE `labels` SET videos = videos + (CASE WHEN new.status = 'available' AND new.removed = 0 THEN 1 ELSE -1 END)
		WHERE id IN (SELECT label_id FROM `content_labels` WHERE content_id = new.id);
	UPDATE `content_labels` SET listable = (new.status = 'available' AND new.removed = 0) WHERE content_id = new.id;
END;
--> statement-breakpoint

-- 2. The text index holds listable videos only, each tagged with its scope ("all o<org> m<sub>",
-- sub 0 for none) so a search reads its own organization's matches; contentless, with rowid
-- -contents.id so that equal relevance and rowid order both come out newest first. Ranked by
-- bm25 over title and description (the scope column weighs nothing).
DROP TRIGGER `contents_fts_insert`;
--> statement-breakpoint
DROP TRIGGER `contents_fts_delete`;
--> statement-breakpoint
DROP TRIGGER `contents_fts_update`;
--> statement-breakpoint
DROP TABLE `contents_fts`;
--> statement-breakpoint
CREATE VIRTUAL TABLE `contents_fts` USING fts5(
	title, description, scope,
	content='',
	tokenize='unicode61 remove_diacritics 2'
);
--> statement-breakpoint
INSERT INTO `contents_fts` (`contents_fts`, rank) VALUES ('rank', 'bm25(1.0, 1.0, 0.0)');
--> statement-breakpoint
INSERT INTO `contents_fts` (rowid, title, description, scope)
	SELECT -id, title, description, 'all o' || organization_id || ' m' || coalesce(sub_organization_id, 0)
	FROM `contents` WHERE status = 'available' AND removed = 0;
--> statement-breakpoint
-- Terms and their document counts: a prefix expands to the words it stands for, and a word's
-- share of the documents tells a common word from a rare one.
CREATE VIRTUAL TABLE `contents_fts_terms` USING fts5vocab(`contents_fts`, 'row');
--> statement-breakpoint
CREATE TRIGGER `contents_fts_insert` AFTER INSERT ON `contents`
WHEN new.status = 'available' AND new.removed = 0 BEGIN
	INSERT INTO `contents_fts` (rowid, title, description, scope)
		VALUES (-new.id, new.title, new.description, 'all o' || new.organization_id || ' m' || coalesce(new.sub_organization_id, 0));
END;
--> statement-breakpoint
CREATE TRIGGER `contents_fts_delete` AFTER DELETE ON `contents`
WHEN old.status = 'available' AND old.removed = 0 BEGIN
	INSERT INTO `contents_fts` (`contents_fts`, rowid, title, description, scope)
		VALUES ('delete', -old.id, old.title, old.description, 'all o' || old.organization_id || ' m' || coalesce(old.sub_organization_id, 0));
END;
--> statement-breakpoint
-- A contentless index forgets a row only when given the exact values it indexed: the old row
-- goes out if it was listable, the new one comes in if it is.
CREATE TRIGGER `contents_fts_update` AFTER UPDATE OF title, description, status, removed, organization_id, sub_organization_id ON `contents`
WHEN (old.status = 'available' AND old.removed = 0) OR (new.status = 'available' AND new.removed = 0) BEGIN
	INSERT INTO `contents_fts` (`contents_fts`, rowid, title, description, scope)
		SELECT 'delete', -old.id, old.title, old.description, 'all o' || old.organization_id || ' m' || coalesce(old.sub_organization_id, 0)
		WHERE old.status = 'available' AND old.removed = 0;
	INSERT INTO `contents_fts` (rowid, title, description, scope)
		SELECT -new.id, new.title, new.description, 'all o' || new.organization_id || ' m' || coalesce(new.sub_organization_id, 0)
		WHERE new.status = 'available' AND new.removed = 0;
END;
--> statement-breakpoint

-- 3. network_listing_counts follows network_listings: one row per (network, organization,
-- country) a listed video is shown in ('' = everywhere). Rows are inserted and deleted, never
-- updated (db/network-listings.ts).
CREATE TRIGGER `network_listings_count_insert` AFTER INSERT ON `network_listings` BEGIN
	INSERT INTO `network_listing_counts` (network_id, organization_id, country, videos)
		SELECT new.network_id, new.organization_id, g.value, 0
		FROM json_each(CASE WHEN new.geos = '[]' THEN '[""]' ELSE new.geos END) g
		WHERE NOT EXISTS (SELECT 1 FROM `network_listing_counts` n
			WHERE n.network_id = new.network_id AND n.organization_id = new.organization_id AND n.country = g.value);
	UPDATE `network_listing_counts` SET videos = videos + 1
		WHERE network_id = new.network_id AND organization_id = new.organization_id
		AND country IN (SELECT value FROM json_each(CASE WHEN new.geos = '[]' THEN '[""]' ELSE new.geos END));
END;
--> statement-breakpoint
CREATE TRIGGER `network_listings_count_delete` AFTER DELETE ON `network_listings` BEGIN
	UPDATE `network_listing_counts` SET videos = videos - 1
		WHERE network_id = old.network_id AND organization_id = old.organization_id
		AND country IN (SELECT value FROM json_each(CASE WHEN old.geos = '[]' THEN '[""]' ELSE old.geos END));
END;
--> statement-breakpoint
-- Backfill at the migration's clock; the cron keeps it from then on.
INSERT INTO `network_listings` (content_id, network_id, organization_id, published_at, geos)
	SELECT c.id, o.network_id, c.organization_id, c.published_at,
		CASE WHEN max(s.geos = '[]' OR EXISTS (SELECT 1 FROM json_each(s.geos) WHERE value = '-')) THEN '[]'
		ELSE (SELECT json_group_array(DISTINCT g.value) FROM `syndications` s2, json_each(s2.geos) g
			WHERE s2.content_id = c.id AND s2.start_time <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
			AND (s2.stop_time IS NULL OR s2.stop_time > strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))) END
	FROM `contents` c
	JOIN `organizations` o ON o.id = c.organization_id
	JOIN `syndications` s ON s.content_id = c.id
	WHERE o.network_id IS NOT NULL AND c.status = 'available' AND c.removed = 0 AND c.published_at IS NOT NULL
		AND s.start_time <= strftime('%Y-%m-%dT%H:%M:%fZ', 'now')
		AND (s.stop_time IS NULL OR s.stop_time > strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
	GROUP BY c.id;
