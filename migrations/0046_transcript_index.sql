-- Hand-written: drizzle-kit cannot create virtual tables (docs/migrations.md). Search by what
-- is said (docs/captions.md): the text of every caption track the service keeps, in passages of
-- about 30 s, each with where its cues are, in a text index of its own beside contents_fts
-- (title and description), which it leaves as it is. The passages are the index's content
-- (an external-content FTS5 table): a search reads their text and times back to say where in
-- the video the words are. Passages are replaced, never updated: two triggers keep the index.
CREATE TABLE `transcript_passages` (
	`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL,
	`content_id` integer NOT NULL,
	`language` text NOT NULL,
	`start_ms` integer NOT NULL,
	`end_ms` integer NOT NULL,
	`text` text NOT NULL,
	`cue_times` text NOT NULL,
	`scope` text NOT NULL,
	FOREIGN KEY (`content_id`) REFERENCES `contents`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE INDEX `transcript_passages_content_idx` ON `transcript_passages` (`content_id`,`language`,`start_ms`);
--> statement-breakpoint
CREATE VIRTUAL TABLE `transcript_fts` USING fts5(
	text, scope,
	content='transcript_passages', content_rowid='id',
	tokenize='unicode61 remove_diacritics 2'
);
--> statement-breakpoint
-- Relevance from the text alone (the scope column only narrows a search).
INSERT INTO `transcript_fts` (`transcript_fts`, rank) VALUES ('rank', 'bm25(1.0, 0.0)');
--> statement-breakpoint
-- A deleted video's passages go by cascade; its delete trigger still runs for each.
CREATE TRIGGER `transcript_passages_fts_insert` AFTER INSERT ON `transcript_passages` BEGIN
	INSERT INTO `transcript_fts` (rowid, text, scope) VALUES (new.id, new.text, new.scope);
END;
--> statement-breakpoint
CREATE TRIGGER `transcript_passages_fts_delete` AFTER DELETE ON `transcript_passages` BEGIN
	INSERT INTO `transcript_fts` (`transcript_fts`, rowid, text, scope) VALUES ('delete', old.id, old.text, old.scope);
END;
