CREATE TABLE "product_name_words" (
	"store" text NOT NULL,
	"word" text NOT NULL,
	CONSTRAINT "product_name_words_store_word_pk" PRIMARY KEY("store","word")
);
--> statement-breakpoint
ALTER TABLE "product_name_words" ADD CONSTRAINT "product_name_words_store_stores_slug_fk" FOREIGN KEY ("store") REFERENCES "public"."stores"("slug") ON DELETE no action ON UPDATE no action;