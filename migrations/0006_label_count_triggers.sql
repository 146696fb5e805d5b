-- Hand-written: labels.videos = listable videos carrying the label, kept by triggers.
UPDATE `labels` SET videos = (
	SELECT count(*) FROM `content_labels` cl JOIN `contents` c ON c.id = cl.content_id
	WHERE cl.label_id = labels.id AND c.status = 'available' AND c.removed = 0
);
--> statement-breakpoint
-- A link added or removed while the video is listable.
CREATE TRIGGER `content_labels_count_insert` AFTER INSERT ON `content_labels` BEGIN
	UPDATE `labels` SET videos = videos + 1 WHERE id = new.label_id
		AND EXISTS (SELECT 1 FROM `contents` WHERE id = new.content_id AND status = 'available' AND removed = 0);
END;
--> statement-breakpoint
CREATE TRIGGER `content_labels_count_delete` AFTER DELETE ON `content_labels` BEGIN
	UPDATE `labels` SET videos = videos - 1 WHERE id = old.label_id
		AND EXISTS (SELECT 1 FROM `contents` WHERE id = old.content_id AND status = 'available' AND removed = 0);
END;
--> statement-breakpoint
-- A video becoming listable or not: all its names follow.
CREATE TRIGGER `contents_label_count_update` AFTER UPDATE OF status, removed ON `contents`
WHEN (old.status = 'available' AND old.removed = 0) <> (new.status = 'available' AND new.removed = 0) BEGIN
	UPDATE `labels` SET videos = videos + (CASE WHEN new.status = 'available' AND new.removed = 0 THEN 1 ELSE -1 END)
		WHERE id IN (SELECT label_id FROM `content_labels` WHERE content_id = new.id);
END;
--> statement-breakpoint
-- A listable video deleted: its links go by cascade after the row, when the content_labels
-- trigger can no longer see it, so the names are decremented before the row goes.
CREATE TRIGGER `contents_label_count_delete` BEFORE DELETE ON `contents`
WHEN old.status = 'available' AND old.removed = 0 BEGIN
	UPDATE `labels` SET videos = videos - 1 WHERE id IN (SELECT label_id FROM `content_labels` WHERE content_id = old.id);
END;
