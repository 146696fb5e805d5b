-- Hand-written. The listing_counts triggers of 0002 created missing counter rows with
-- INSERT OR IGNORE; inside an UPSERT's DO UPDATE SQLite runs triggers with ABORT, which overrides
-- OR IGNORE, so an upsert that changed status/removed failed on the counter's primary key.
-- These versions insert a missing counter row only WHERE NOT EXISTS, follow a change of
-- organization_id, and create no counter row for an organization that is being deleted (its
-- sub-organizations' ON DELETE SET NULL updates contents during the cascade).
DROP TRIGGER IF EXISTS `contents_count_insert`;
--> statement-breakpoint
DROP TRIGGER IF EXISTS `contents_count_update`;
--> statement-breakpoint
CREATE TRIGGER `contents_count_insert` AFTER INSERT ON `contents`
WHEN new.status = 'available' AND new.removed = 0 BEGIN
	INSERT INTO `listing_counts` (organization_id, sub_organization_id, videos)
		SELECT new.organization_id, s.id, 0 FROM (SELECT 0 AS id UNION SELECT coalesce(new.sub_organization_id, 0)) s
		WHERE NOT EXISTS (SELECT 1 FROM `listing_counts` WHERE organization_id = new.organization_id AND sub_organization_id = s.id)
		AND EXISTS (SELECT 1 FROM `organizations` WHERE id = new.organization_id);
	UPDATE `listing_counts` SET videos = videos + 1
		WHERE organization_id = new.organization_id AND sub_organization_id IN (0, coalesce(new.sub_organization_id, 0));
END;
--> statement-breakpoint
CREATE TRIGGER `contents_count_update` AFTER UPDATE OF status, removed, sub_organization_id, organization_id ON `contents`
WHEN (old.status = 'available' AND old.removed = 0) OR (new.status = 'available' AND new.removed = 0) BEGIN
	UPDATE `listing_counts` SET videos = videos - 1
		WHERE old.status = 'available' AND old.removed = 0
		AND organization_id = old.organization_id AND sub_organization_id IN (0, coalesce(old.sub_organization_id, 0));
	INSERT INTO `listing_counts` (organization_id, sub_organization_id, videos)
		SELECT new.organization_id, s.id, 0 FROM (SELECT 0 AS id UNION SELECT coalesce(new.sub_organization_id, 0)) s
		WHERE new.status = 'available' AND new.removed = 0
		AND NOT EXISTS (SELECT 1 FROM `listing_counts` WHERE organization_id = new.organization_id AND sub_organization_id = s.id)
		AND EXISTS (SELECT 1 FROM `organizations` WHERE id = new.organization_id);
	UPDATE `listing_counts` SET videos = videos + 1
		WHERE new.status = 'available' AND new.removed = 0
		AND organization_id = new.organization_id AND sub_organization_id IN (0, coalesce(new.sub_organization_id, 0));
END;
