// SqliteStore: the artifacts table, the files a task left in its /output (a path recorded again replaces).

#include "app/store/sqlite/SqliteStore.h"

#include <sqlite3.h>

namespace warren::control {

namespace {

constexpr const char* kPutArtifact =
    "INSERT INTO artifacts (task_id, path, bytes, sha256) VALUES (?1, ?2, ?3, ?4) "
    "ON CONFLICT (task_id, path) DO UPDATE SET bytes = excluded.bytes, "
    "sha256 = excluded.sha256";
constexpr const char* kSelectArtifacts =
    "SELECT task_id, path, bytes, sha256 FROM artifacts WHERE task_id = ?1 ORDER BY path";

ArtifactRecord readArtifact(const Statement& row) {
    return ArtifactRecord{row.text(0), row.text(1), row.uint(2), row.text(3)};
}

} // namespace

Status SqliteStore::putArtifact(const ArtifactRecord& artifact) {
    return m_db.query(kPutArtifact)
        .bind(artifact.taskId, artifact.path, artifact.bytes, artifact.sha256)
        .runOr([&](int code) {
            const std::string which = "the artifact " + artifact.path + " of task " + artifact.taskId;
            if (code == SQLITE_CONSTRAINT_FOREIGNKEY)
                return makeError(ErrorCode::InvalidArgument,
                                 "cannot record " + which +
                                     ": the task is not in the database; add the task first");
            return m_db.failure("record " + which);
        });
}

Result<std::vector<ArtifactRecord>> SqliteStore::artifacts(const std::string& taskId) {
    return m_db.query(kSelectArtifacts)
        .bind(taskId)
        .all("read the artifacts of task " + taskId, readArtifact);
}

} // namespace warren::control
