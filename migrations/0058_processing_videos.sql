-- The cron's sweep of clips whose job died or whose message was lost (domain/stalled-jobs.ts):
-- videos still processing, oldest change first. Few rows are processing at once (clips being
-- made, sources waiting for a transcoded top rung), so the partial index stays small.
CREATE INDEX IF NOT EXISTS `contents_processing_idx` ON `contents` (`updated_at`) WHERE status = 'processing';
