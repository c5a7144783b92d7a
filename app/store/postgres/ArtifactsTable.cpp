// PgStore: the artifacts table, the files a task left in its /output (a path recorded again replaces).

#include "app/store/postgres/PgQuery.h"
#include "app/store/postgres/PgStore.h"

namespace warren::control {

namespace {

constexpr const char* kPutArtifact =
    "INSERT INTO artifacts (task_id, path, bytes, sha256) VALUES ($1, $2, $3::bigint, $4) "
    "ON CONFLICT (task_id, path) DO UPDATE SET bytes = excluded.bytes, sha256 = excluded.sha256";
constexpr const char* kSelectArtifacts =
    "SELECT task_id, path, bytes, sha256 FROM artifacts WHERE task_id = $1 ORDER BY path";

ArtifactRecord readArtifact(const PgRow& row) {
    return ArtifactRecord{row.text(0), row.text(1), row.uint(2), row.text(3)};
}

} // namespace

Status PgStore::putArtifact(const ArtifactRecord& artifact) {
    const std::string which = "the artifact " + artifact.path + " of task " + artifact.taskId;
    return pgRun(m_db.exec("record " + which, kPutArtifact,
                           pgParams(artifact.taskId, artifact.path, artifact.bytes, artifact.sha256),
                           [&](const PgRefused& refused) {
                               return refused.sqlstate == "23503"
                                          ? std::optional<Error>(makeError(
                                                ErrorCode::InvalidArgument,
                                                "cannot record " + which +
                                                    ": the task is not in the database; add the task first"))
                                          : std::nullopt;
                           }));
}

Result<std::vector<ArtifactRecord>> PgStore::artifacts(const std::string& taskId) {
    return pgAll(m_db.exec("read the artifacts of task " + taskId, kSelectArtifacts, pgParams(taskId)),
                 readArtifact);
}

} // namespace warren::control
