/**
 * Every limit the MP4 readers put on an untrusted file, in one place: what a box may hold, how
 * much may be read, how many requests a stage may make, how many samples an index may keep.
 * docs/api.md#what-e2-refuses says what a user sees when one is reached; docs/benchmarks.md
 * has the measurements behind them.
 */

// ---------------------------------------------------------------------------
// Boxes.
// ---------------------------------------------------------------------------

/**
 * A box holds a handful of children in a real file (a moov: its tracks; a moof: its trafs);
 * listing millions of tiny ones would take memory in proportion.
 */
export const MAX_CHILD_BOXES = 10_000;
/** Metadata larger than this is not a sane upload (and would not fit in memory comfortably). */
export const MAX_MOOV_BYTES = 64 * 1024 * 1024;
/** Each top-level box costs a ranged read (a subrequest), so stop early on odd files. */
export const MAX_TOP_LEVEL_BOXES = 100;
/** First read: covers ftyp + moov of most faststart files in a single request. */
export const HEAD_READ_BYTES = 64 * 1024;

// ---------------------------------------------------------------------------
// The probe's fragment stage (mp4-fragments.ts): a fragmented file's duration.
// ---------------------------------------------------------------------------

/**
 * Requests the fragment stage may make after the moov has been read (tail +
 * moofs): enough to walk a minute or two of typical fragments when a file
 * has no index. With the head read that makes at most 65 ranged reads of R2:
 * fine on Workers Paid (thousands of subrequests per request), over the Free
 * plan's 50 (like the existing 100-box cap of the moov search).
 */
export const MAX_FRAGMENT_READS = 64;
/**
 * The tail read that looks for mfro also takes in the whole mfra of a long
 * file (~70 KB for 1 h of 2 s fragments and two tracks).
 */
export const TAIL_READ_BYTES = 128 * 1024;
/** Each read of the walk takes this much, so a moof and the next mdat header come in one request. */
export const WALK_WINDOW_BYTES = 16 * 1024;
/** A moof describes one fragment (a few KB); anything near this is not a sane file. */
export const MAX_MOOF_BYTES = 4 * 1024 * 1024;
/** The mfra holds a few bytes per fragment and track. */
export const MAX_MFRA_BYTES = 16 * 1024 * 1024;

// ---------------------------------------------------------------------------
// The first part of an upload (mp4-head.ts).
// ---------------------------------------------------------------------------

/** How much of a first part is held back to find its moov (an hour's moov is about 1 MB). */
export const HEAD_SCAN_MAX_BYTES = 8 * 1024 * 1024;

// ---------------------------------------------------------------------------
// The HLS index (hls/tracks.ts): every sample of a stored file.
// ---------------------------------------------------------------------------

/**
 * A fragmented file costs one read per fragment to index (once per file): 20,000 reads cover
 * 11 hours of 2 s fragments. Past it the file has no HLS stream (its MP4 still plays).
 */
export const MAX_FRAGMENT_WALK_READS = 20_000;
/** Each read of the index's fragment walk takes this much. */
export const INDEX_WALK_WINDOW_BYTES = 64 * 1024;
/**
 * The index reads every moof the file has, also of files whose duration came from their mehd
 * (the probe then read none), so its cap is looser than MAX_MOOF_BYTES.
 */
export const MAX_INDEX_MOOF_BYTES = 16 * 1024 * 1024;
/**
 * The index's budget (docs/api.md#what-e2-refuses): samples are kept in memory while the index
 * is built, so a file may hold at most this many in all (2.3 hours of 30 fps video with 44.1 kHz
 * AAC); the memory it takes is measured in docs/benchmarks.md.
 */
export const MAX_INDEX_SAMPLES = 600_000;
/** A track with more samples per second of its duration than this is not a real video or AAC track. */
export const MAX_SAMPLES_PER_SECOND = 1_000;
/** ... plus this many, so that a track of a fraction of a second is not judged by its rate. */
export const SAMPLE_RATE_SLACK = 1_000;
