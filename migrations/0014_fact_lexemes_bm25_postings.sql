-- The facts' lexemes, stemmed once when a fact is written instead of at every global question
-- (edgeLexicalSearchSql). A nullable column without a default is added without rewriting
-- "edges" (a stored generated column would rewrite it, and rebuild its HNSW index, under an
-- ACCESS EXCLUSIVE lock); a trigger keeps it, and facts written before this migration keep
-- null there and are stemmed at question time as before. docs/DECISIONS.md: "Facts' lexemes
-- and BM25's postings are read, not computed".
ALTER TABLE "edges" ADD COLUMN "lexemes" "tsvector";--> statement-breakpoint
CREATE FUNCTION "edges_set_lexemes"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  -- The same words, in the same configuration, as edgeLexicalSearchSql's fallback.
  NEW.lexemes := to_tsvector('english'::regconfig,
    replace(NEW.relation, '_', ' ') || ' ' || coalesce(NEW.description, '') || ' ' || coalesce(NEW.keywords, ''));
  RETURN NEW;
END
$$;--> statement-breakpoint
CREATE TRIGGER "edges_lexemes" BEFORE INSERT OR UPDATE OF "relation", "description", "keywords" ON "edges"
  FOR EACH ROW EXECUTE FUNCTION "edges_set_lexemes"();--> statement-breakpoint
-- BM25 reads each posting's frequency and chunk length: carried in the primary key's leaf pages
-- (INCLUDE, which the schema builder cannot express, so it lives only here), a question's
-- postings are an index-only scan instead of one heap fetch each. Same key, same uniqueness;
-- rebuilding it locks "chunk_terms" for as long as the build takes (measured in DECISIONS).
ALTER TABLE "chunk_terms" DROP CONSTRAINT "chunk_terms_tenant_id_graph_id_lexeme_chunk_id_pk",
  ADD CONSTRAINT "chunk_terms_tenant_id_graph_id_lexeme_chunk_id_pk" PRIMARY KEY ("tenant_id","graph_id","lexeme","chunk_id") INCLUDE ("frequency","chunk_length");
