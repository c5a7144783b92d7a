#include "app/secrets/FileSecretStore.h"

#include "common/UniqueFd.h"
#include "common/WriteAll.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sys/stat.h>
#include <unistd.h>

namespace warren::control {

using nlohmann::json;

namespace {

constexpr int kFormatVersion = 1;
constexpr off_t kMaxFileBytes = 1024 * 1024; // API keys, not a database

Error systemError(const std::string& what, int error) {
    return makeError(ErrorCode::System, what + ": " + std::strerror(error));
}

} // namespace

FileSecretStore::FileSecretStore(std::string dataDir)
    : m_dataDir(std::move(dataDir)), m_path((std::filesystem::path(m_dataDir) / "secrets.json").string()) {}

std::string FileSecretStore::warning() const {
    return "API keys are stored in " + m_path +
           " (readable only by you) because no OS keychain answered; install and unlock a Secret Service "
           "keyring (e.g. gnome-keyring) to keep them there instead.";
}

Result<std::map<std::string, std::string>> FileSecretStore::load() const {
    UniqueFd fd(::open(m_path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW));
    if (!fd.valid() && errno == ENOENT)
        return std::map<std::string, std::string>{};
    if (!fd.valid())
        return systemError(
            "cannot open the secrets file " + m_path + " (it must be a regular file, not a link)", errno);
    // Checked on the open file, not the name, so the file cannot be swapped between check and read.
    struct stat status {};
    if (::fstat(fd.get(), &status) != 0)
        return systemError("cannot inspect the secrets file " + m_path, errno);
    if (!S_ISREG(status.st_mode))
        return makeError(ErrorCode::InvalidArgument, "the secrets file " + m_path + " is not a regular file");
    if (status.st_uid != ::geteuid())
        return makeError(ErrorCode::InvalidArgument,
                         "the secrets file " + m_path + " belongs to another user (uid " +
                             std::to_string(status.st_uid) +
                             "); remove it or `chown` it to yourself and `chmod 600 " + m_path + "`");
    if ((status.st_mode & (S_IRWXG | S_IRWXO)) != 0)
        return makeError(ErrorCode::InvalidArgument,
                         "the secrets file " + m_path +
                             " can be read or changed by other users; run `chmod 600 " + m_path +
                             "` (and replace the keys it holds if others had access)");
    if (status.st_size > kMaxFileBytes)
        return makeError(ErrorCode::InvalidArgument, "the secrets file " + m_path + " is larger than 1 MiB");
    std::string text(static_cast<std::size_t>(status.st_size), '\0');
    std::size_t done = 0;
    while (done < text.size()) {
        const ssize_t count = ::read(fd.get(), text.data() + done, text.size() - done);
        if (count < 0 && errno == EINTR)
            continue;
        if (count < 0)
            return systemError("cannot read the secrets file " + m_path, errno);
        if (count == 0)
            break;
        done += static_cast<std::size_t>(count);
    }
    text.resize(done);
    const json document = json::parse(text, nullptr, false);
    const auto secrets = document.is_object() ? document.find("secrets") : document.end();
    if (!document.is_object() || secrets == document.end() || !secrets->is_object())
        return makeError(ErrorCode::InvalidArgument,
                         "the secrets file " + m_path +
                             " is not valid (expected {\"secrets\": {...}}); fix or remove it "
                             "and enter the API keys again");
    std::map<std::string, std::string> loaded;
    for (const auto& [name, value] : secrets->items()) {
        if (!value.is_string())
            return makeError(ErrorCode::InvalidArgument, "the secrets file " + m_path + ": \"" + name +
                                                             "\" is not a string; fix or remove it");
        loaded[name] = value.get<std::string>();
    }
    return loaded;
}

Status FileSecretStore::save(const std::map<std::string, std::string>& secrets) const {
    std::string text;
    try {
        text = json{{"version", kFormatVersion}, {"secrets", secrets}}.dump(4) + "\n";
    } catch (const json::exception&) {
        return makeError(ErrorCode::InvalidArgument,
                         "a secret or its name is not UTF-8 text; it cannot be stored");
    }
    std::error_code ignored;
    std::filesystem::create_directories(m_dataDir, ignored);
    // mkostemp creates the file with O_CREAT|O_EXCL and mode 0600; fchmod makes sure of it whatever the
    // umask or the C library. The secrets are never in a file anyone else can open.
    std::string temp = m_path + ".XXXXXX";
    UniqueFd fd(::mkostemp(temp.data(), O_CLOEXEC));
    if (!fd.valid())
        return systemError("cannot create a file in " + m_dataDir + " for the secrets", errno);
    const auto fail = [&](const std::string& what) {
        const int error = errno;
        ::unlink(temp.c_str());
        return systemError(what, error);
    };
    if (::fchmod(fd.get(), S_IRUSR | S_IWUSR) != 0)
        return fail("cannot make " + temp + " readable only by you");
    if (!writeAll(fd.get(), text) || ::fsync(fd.get()) != 0)
        return fail("cannot write the secrets to " + temp);
    if (::close(fd.release()) != 0)
        return fail("cannot write the secrets to " + temp);
    if (::rename(temp.c_str(), m_path.c_str()) != 0)
        return fail("cannot replace " + m_path);
    // The rename reaches the disk with the directory.
    UniqueFd dir(::open(m_dataDir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.valid())
        ::fsync(dir.get());
    return Ok{};
}

Result<std::optional<std::string>> FileSecretStore::read(const std::string& name) {
    auto secrets = load();
    if (!secrets)
        return secrets.error();
    const auto it = secrets->find(name);
    if (it == secrets->end())
        return std::optional<std::string>{};
    return std::optional<std::string>{it->second};
}

Status FileSecretStore::write(const std::string& name, const std::string& secret) {
    auto secrets = load();
    if (!secrets)
        return secrets.error();
    (*secrets)[name] = secret;
    return save(*secrets);
}

Status FileSecretStore::remove(const std::string& name) {
    auto secrets = load();
    if (!secrets)
        return secrets.error();
    if (secrets->erase(name) == 0)
        return Ok{};
    return save(*secrets);
}

} // namespace warren::control
