// Another client's latency while one user's big uploads are extracted, against the same client with the
// server idle, side by side in one run. One user (the flood) sends three uploads of 50,000 one-byte files
// at once; meanwhile another user sends requests one after another: GET /v1/me (the event loop alone) and
// a one-file upload (which needs a disk worker too). p50, p99 and the ratio busy / idle of each. Before
// requests' disk work left the event loop, every request waited for the whole extraction.
//   bench_server_disk_work [IDLE_REQUESTS]     (WARREN_WARREND and WARREN_AGENT as for the tests)

#include "bench/BenchStats.h"
#include "bench/WarrendBench.h"
#include "tests/server/uploads/TarBuilder.h"

#include <QCoreApplication>
#include <QNetworkReply>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

using warren::bench::Clock;
using warren::bench::msSince;
using warren::bench::percentile;
using warren::tar::test::TarBuilder;

constexpr int kFloodUploads = 3;

[[noreturn]] void fail(const QString& what) {
    warren::bench::benchFailed("bench_server_disk_work", what);
}

QByteArray manySmallFiles() {
    return QByteArray::fromStdString(warren::tar::test::smallFilesArchive(100, 500));
}

struct Samples {
    std::vector<double> me, upload;
};

// One GET /v1/me and one small upload, each timed.
void sample(warren::test::WarrendServer& server, const QString& key, const QByteArray& small, Samples& into) {
    auto start = Clock::now();
    if (server.request("GET", "/v1/me", key).status != 200)
        fail("GET /v1/me failed");
    into.me.push_back(msSince(start));
    start = Clock::now();
    const auto uploaded = server.request("POST", "/v1/uploads", key, small, {{"Content-Type", "application/x-tar"}});
    if (uploaded.status != 201)
        fail("the small upload failed: " + QString::fromUtf8(uploaded.body));
    into.upload.push_back(msSince(start));
}

void report(const char* name, const std::vector<double>& idle, const std::vector<double>& busy) {
    const double idle50 = percentile(idle, 0.5), idle99 = percentile(idle, 0.99);
    const double busy50 = percentile(busy, 0.5), busy99 = percentile(busy, 0.99);
    std::printf("%-26s idle p50 %7.1f p99 %7.1f ms | busy p50 %7.1f p99 %7.1f ms | ratio p50 %5.1f p99 %5.1f"
                "  (n=%zu/%zu)\n",
                name, idle50, idle99, busy50, busy99, busy50 / idle50, busy99 / idle99, idle.size(), busy.size());
}

} // namespace

int main(int argc, char** argv) {
    QCoreApplication app(argc, argv);
    const int idleRequests = argc > 1 ? std::atoi(argv[1]) : 100;
    auto bench = warren::bench::startWarrendBench("bench_server_disk_work", {{"README.md", "# bench\n"}});
    warren::test::WarrendServer& server = *bench.server;
    const QString other = server.addUser("other");
    if (other.isEmpty())
        fail("warrend admin add-user failed");
    const QByteArray small = QByteArray::fromStdString(TarBuilder().file("README", "hi\n").finish());
    const QByteArray big = manySmallFiles();

    Samples idle, busy;
    sample(server, other, small, idle); // warm-up
    idle = {};
    for (int i = 0; i < idleRequests; ++i)
        sample(server, other, small, idle);

    QNetworkAccessManager network;
    std::vector<QNetworkReply*> flood;
    const auto floodStart = Clock::now();
    for (int i = 0; i < kFloodUploads; ++i) {
        QNetworkRequest request(QUrl(server.url() + "/v1/uploads"));
        request.setRawHeader("Authorization", "Bearer " + bench.key.toUtf8());
        request.setHeader(QNetworkRequest::ContentTypeHeader, "application/x-tar");
        flood.push_back(network.post(request, big));
    }
    const auto floodRunning = [&] {
        for (QNetworkReply* reply : flood)
            if (!reply->isFinished())
                return true;
        return false;
    };
    while (floodRunning())
        sample(server, other, small, busy);
    const double floodMs = msSince(floodStart);
    for (QNetworkReply* reply : flood) {
        if (reply->attribute(QNetworkRequest::HttpStatusCodeAttribute).toInt() != 201)
            fail("a flood upload failed: " + QString::fromUtf8(reply->readAll()));
        reply->deleteLater();
    }

    std::printf("another user's requests, idle against while %d uploads of 50,000 files (%.0f MB each) are "
                "received and extracted (%.0f ms)\n",
                kFloodUploads, static_cast<double>(big.size()) / 1e6, floodMs);
    report("GET /v1/me", idle.me, busy.me);
    report("POST /v1/uploads (1 file)", idle.upload, busy.upload);
    return 0;
}
