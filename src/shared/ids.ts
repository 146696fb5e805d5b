// Formats of the identifiers the API hands out and accepts.

/** A content key (spec 2.1): 1–8 ASCII letters or digits. It also names R2 objects and URLs. */
export const CONTENT_KEY_PATTERN = /^[A-Za-z0-9]{1,8}$/;

/** Organization keys, MMI keys, feed ids, sync codes in paths: letters, digits, - and _. */
export const KEY_PATTERN = /^[A-Za-z0-9_-]{1,64}$/;
