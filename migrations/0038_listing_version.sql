-- Hand-written: the organization's listing version (src/db/schema.ts organizations.listingVersion),
-- moved with the catalog version by every change that can change which videos a listing without a
-- text filter holds or their order; an edit of a video's text or media alone leaves it. Listing ids
-- and counts kept in isolate memory are keyed by it (domain/catalog/listing-ids.ts).
ALTER TABLE `organizations` ADD `listing_version` integer DEFAULT 0 NOT NULL;
