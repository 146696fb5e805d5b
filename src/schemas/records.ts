// Shapes shared by the records of several endpoints (spec 2.3).
import { z } from "@hono/zod-openapi";

export const translationRecord = z
  .object({ language: z.string(), title: z.string(), description: z.string() })
  .openapi("Translation");

export const syndicationRecord = z
  .object({
    name: z.string(),
    start_time: z.string(),
    stop_time: z.string().nullable(),
    geos: z.array(z.string()),
  })
  .openapi("Syndication");

/** The fields every older (2.3) record with a duration starts with (search, feed search, E9). */
export const olderRecordHead = {
  content_key: z.string(),
  created_date: z.string(),
  description: z.string(),
  duration: z.number(),
  service_categories: z.array(z.string()),
  isLive: z.boolean().openapi({
    description: "Extension: true while the video is a live stream that runs (docs/live.md)",
  }),
};
