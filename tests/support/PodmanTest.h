#pragma once
// What every control-plane test of the container backends checks first: the test image, and why such a test
// cannot run here (empty: it can): an agent that runs on any image (static), podman installed and answering,
// the image present. When CONTAINERS_CONF is unset and runc is installed, it selects the repository's
// packaging/containers.conf (see it for why).

#include <QString>

namespace warren::test {

QString testImage(); // $WARREN_TEST_IMAGE, default localhost/warren-test:3 (packaging/make-test-image.sh)
QString podmanSkipReason();

} // namespace warren::test
