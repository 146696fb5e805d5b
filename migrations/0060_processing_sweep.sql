-- Hand-written: a partial index drizzle-kit's snapshot also describes (schema.ts), added here
-- without touching contents (docs/migrations.md rule 2). The cron finds videos left processing
-- with no rung planned (domain/stalled-jobs.ts) through it.
CREATE INDEX `contents_processing_idx` ON `contents` (`updated_at`) WHERE status = 'processing';
