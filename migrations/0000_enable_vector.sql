-- pgvector must exist before any table with a vector column is created.
CREATE EXTENSION IF NOT EXISTS vector;
