-- The vector type of each store (docs/DECISIONS.md, "The embedded store keeps vectors in single
-- precision"). Every statement casts a vector it sends to one of three domains: loci_vector (any
-- width), loci_vector_1024 and loci_vector_256 (a column's width). On PostgreSQL they are halfvec,
-- as the columns have been since 0012, so nothing else changes there. On the embedded store
-- (PGlite: PostgreSQL in WebAssembly, where pgvector has neither F16C nor SIMD and converts every
-- half-precision component in software) the columns and their HNSW indexes become `vector`:
-- an insertion costs a seventh and a search a quarter (docs/BENCHMARKS.md, "Vector types on
-- PGlite"). Converted rows keep their half-precision values exactly. PGlite's store belongs to
-- one process, which runs this at its start; the graph tables are rewritten once and their
-- indexes built again inside the migrator's transaction.
DO $$
DECLARE
  embedded constant boolean := version() LIKE '%PGlite%';
  element constant text := CASE WHEN embedded THEN 'vector' ELSE 'halfvec' END;
  -- Each HNSW index with its column; dropped first so that a table's one rewrite rebuilds none.
  indexed constant text[][] := ARRAY[
    ['chunks', 'embedding', 'chunks_embedding_hnsw'],
    ['chunks', 'summary_embedding', 'chunks_summary_embedding_hnsw'],
    ['chunks', 'embedding_256', 'chunks_embedding_256_hnsw'],
    ['chunks', 'summary_embedding_256', 'chunks_summary_embedding_256_hnsw'],
    ['entities', 'embedding', 'entities_embedding_hnsw'],
    ['entities', 'name_embedding', 'entities_name_embedding_hnsw'],
    ['entities', 'embedding_256', 'entities_embedding_256_hnsw'],
    ['entities', 'name_embedding_256', 'entities_name_embedding_256_hnsw'],
    ['edges', 'embedding', 'edges_embedding_hnsw'],
    ['edges', 'embedding_256', 'edges_embedding_256_hnsw']
  ];
  i integer;
BEGIN
  EXECUTE format('CREATE DOMAIN loci_vector AS %s', element);
  EXECUTE format('CREATE DOMAIN loci_vector_1024 AS %s(1024)', element);
  EXECUTE format('CREATE DOMAIN loci_vector_256 AS %s(256)', element);
  IF NOT embedded THEN
    RETURN;
  END IF;
  FOR i IN 1 .. array_length(indexed, 1) LOOP
    EXECUTE format('DROP INDEX IF EXISTS %I', indexed[i][3]);
  END LOOP;
  ALTER TABLE chunks
    ALTER COLUMN embedding SET DATA TYPE vector(1024) USING embedding::vector(1024),
    ALTER COLUMN summary_embedding SET DATA TYPE vector(1024) USING summary_embedding::vector(1024),
    ALTER COLUMN embedding_256 SET DATA TYPE vector(256) USING embedding_256::vector(256),
    ALTER COLUMN summary_embedding_256 SET DATA TYPE vector(256) USING summary_embedding_256::vector(256);
  ALTER TABLE entities
    ALTER COLUMN embedding SET DATA TYPE vector(1024) USING embedding::vector(1024),
    ALTER COLUMN name_embedding SET DATA TYPE vector(1024) USING name_embedding::vector(1024),
    ALTER COLUMN embedding_256 SET DATA TYPE vector(256) USING embedding_256::vector(256),
    ALTER COLUMN name_embedding_256 SET DATA TYPE vector(256) USING name_embedding_256::vector(256);
  ALTER TABLE edges
    ALTER COLUMN embedding SET DATA TYPE vector(1024) USING embedding::vector(1024),
    ALTER COLUMN embedding_256 SET DATA TYPE vector(256) USING embedding_256::vector(256);
  FOR i IN 1 .. array_length(indexed, 1) LOOP
    EXECUTE format('CREATE INDEX %I ON %I USING hnsw (%I vector_cosine_ops)', indexed[i][3], indexed[i][1], indexed[i][2]);
  END LOOP;
END $$;
