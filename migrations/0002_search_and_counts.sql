-- Hand-written (drizzle-kit cannot express virtual tables or triggers).

-- Text search (E6 searchString, E14, E15): an external-content FTS5 index over contents'
-- title and description, case and diacritics folded, kept in sync by triggers.
CREATE VIRTUAL TABLE `contents_fts` USING fts5(
	title, description,
	content='contents', content_rowid='id',
	tokenize='unicode61 remove_diacritics 2'
);
--> statement-breakpoint
INSERT INTO `contents_fts` (rowid, title, description) SELECT id, title, description FROM `contents`;
--> statement-breakpoint
CREATE TRIGGER `contents_fts_insert` AFTER INSERT ON `contents` BEGIN
	INSERT INTO `contents_fts` (rowid, title, description) VALUES (new.id, new.title, new.description);
END;
--> statement-breakpoint
CREATE TRIGGER `contents_fts_delete` AFTER DELETE ON `contents` BEGIN
	INSERT INTO `contents_fts` (`contents_fts`, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
END;
--> statement-breakpoint
CREATE TRIGGER `contents_fts_update` AFTER UPDATE OF title, description ON `contents` BEGIN
	INSERT INTO `contents_fts` (`contents_fts`, rowid, title, description) VALUES ('delete', old.id, old.title, old.description);
	INSERT INTO `contents_fts` (rowid, title, description) VALUES (new.id, new.title, new.description);
END;
--> statement-breakpoint

-- listing_counts: listable (available, not removed) videos per organization (sub id 0) and per
-- sub-organization, so unfiltered listings count with one row read.
INSERT OR IGNORE INTO `listing_counts` (organization_id, sub_organization_id, videos)
	SELECT organization_id, 0, count(*) FROM `contents` WHERE status = 'available' AND removed = 0 GROUP BY organization_id;
--> statement-breakpoint
INSERT OR IGNORE INTO `listing_counts` (organization_id, sub_organization_id, videos)
	SELECT organization_id, sub_organization_id, count(*) FROM `contents`
	WHERE status = 'available' AND removed = 0 AND sub_organization_id IS NOT NULL GROUP BY organization_id, sub_organization_id;
--> statement-breakpoint
CREATE TRIGGER `contents_count_insert` AFTER INSERT ON `contents`
WHEN new.status = 'available' AND new.removed = 0 BEGIN
	INSERT OR IGNORE INTO `listing_counts` VALUES (new.organization_id, 0, 0), (new.organization_id, coalesce(new.sub_organization_id, 0), 0);
	UPDATE `listing_counts` SET videos = videos + 1
		WHERE organization_id = new.organization_id AND sub_organization_id IN (0, coalesce(new.sub_organization_id, 0));
END;
--> statement-breakpoint
CREATE TRIGGER `contents_count_delete` AFTER DELETE ON `contents`
WHEN old.status = 'available' AND old.removed = 0 BEGIN
	UPDATE `listing_counts` SET videos = videos - 1
		WHERE organization_id = old.organization_id AND sub_organization_id IN (0, coalesce(old.sub_organization_id, 0));
END;
--> statement-breakpoint
CREATE TRIGGER `contents_count_update` AFTER UPDATE OF status, removed, sub_organization_id ON `contents`
WHEN (old.status = 'available' AND old.removed = 0) OR (new.status = 'available' AND new.removed = 0) BEGIN
	UPDATE `listing_counts` SET videos = videos - 1
		WHERE old.status = 'available' AND old.removed = 0
		AND organization_id = old.organization_id AND sub_organization_id IN (0, coalesce(old.sub_organization_id, 0));
	INSERT OR IGNORE INTO `listing_counts` VALUES (new.organization_id, 0, 0), (new.organization_id, coalesce(new.sub_organization_id, 0), 0);
	UPDATE `listing_counts` SET videos = videos + 1
		WHERE new.status = 'available' AND new.removed = 0
		AND organization_id = new.organization_id AND sub_organization_id IN (0, coalesce(new.sub_organization_id, 0));
END;
