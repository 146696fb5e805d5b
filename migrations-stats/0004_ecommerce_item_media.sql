ALTER TABLE `ecommerce_items` ADD `image_url` text;--> statement-breakpoint
ALTER TABLE `ecommerce_items` ADD `price_text` text;