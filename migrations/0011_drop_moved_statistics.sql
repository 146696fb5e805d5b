DROP TABLE `ad_stats`;--> statement-breakpoint
DROP TABLE `dimension_counts`;--> statement-breakpoint
DROP TABLE `dimension_values`;--> statement-breakpoint
DROP TABLE `ecommerce_items`;--> statement-breakpoint
DROP TABLE `ecommerce_stats`;--> statement-breakpoint
DROP TABLE `video_stats`;--> statement-breakpoint
DROP TABLE `viewer_stats`;