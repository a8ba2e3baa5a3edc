-- A document's ingestion jobs, found by the document (its page's processing history, a dataset's
-- deletion): done jobs are kept, so without this a look-up reads every job the tenant ever had.
CREATE INDEX "jobs_document_idx" ON "jobs" USING btree ("tenant_id",("payload"->>'documentId'));
