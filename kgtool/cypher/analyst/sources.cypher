// The knowledge sources in the graph, what `kgtool delete` can name: every file
// (--source: fact files and edit files, with the facts they state), every edit batch
// (--batch) and every document collection file (--source; its documents are --document).
// params: none
// returns: kind, name, file, edits, documents, facts
CALL () {
  MATCH (s:Source)
  RETURN 'file' AS kind, s.name AS name, s.id AS file, COUNT { MATCH (ed:Edit) WHERE ed.file = s.id } AS edits,
         0 AS documents, COUNT { (s)-[:STATES]->() } AS facts
  UNION ALL
  MATCH (ed:Edit)
  WITH ed.batch AS batch, collect(DISTINCT ed.file) AS files, count(*) AS edits,
       sum(COUNT { (ed)-[:ASSERTS]->() }) AS facts
  RETURN 'batch' AS kind, batch AS name, head(files) AS file, edits, 0 AS documents, facts
  UNION ALL
  MATCH (d:Document)
  WITH d.source AS file, count(*) AS documents, sum(COUNT { (d)-[:HAS_PASSAGE]->()-[:SUPPORTS]->() }) AS facts
  RETURN 'documents' AS kind, file AS name, file, 0 AS edits, documents, facts
}
RETURN kind, name, file, edits, documents, facts
ORDER BY kind, name
