// SPDX-License-Identifier: MIT
// exactattn command line: writing output files safely — one file atomically (-o FILE, --junit,
// --npy...), or a set of files all or nothing (-o DIR of variants and oracle vectors).
#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "commands.hpp"
#include "delivery.hpp"
#include "exactattn/error.hpp"

namespace exactattn::cli {

namespace {

Error output_error(const std::string& path, const std::string& what, int err, const char* option) {
    Location where;
    where.context = option;
    return usage_error(fmt::format("cannot write {}: {}: {}", path, what, std::strerror(err)), where);
}

// Writes all of `data` to `fd` (a write cut short or interrupted goes on); 0, or the errno.
int write_fully(int fd, std::string_view data) {
    std::size_t done = 0;
    while (done < data.size()) {
        const ssize_t w = ::write(fd, data.data() + done, data.size() - done);
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) return errno;
        done += static_cast<std::size_t>(w);
    }
    return 0;
}

}  // namespace

void write_output_file(const std::string& named, std::string_view data, const char* option) {
    auto output_error = [option](const std::string& path, const std::string& what, int err) {
        return cli::output_error(path, what, err, option);
    };
    // A symbolic link is written through, to the file it names (as `>` does): the temporary file
    // is made beside that file and renamed over it, and the link stays a link.
    std::string path = named;
    struct stat link {};
    if (::lstat(named.c_str(), &link) == 0 && S_ISLNK(link.st_mode)) {
        std::error_code ec;
        const auto target = std::filesystem::canonical(named, ec);
        if (!ec) path = target.string();
    }
    struct stat st {};
    const bool exists = ::stat(path.c_str(), &st) == 0;
    if (exists && S_ISDIR(st.st_mode)) throw output_error(path, "it is a directory", EISDIR);
    auto write_all = [&](int fd, const std::string& name) {
        if (const int e = write_fully(fd, data); e != 0) {
            ::close(fd);
            if (name != path) ::unlink(name.c_str());
            throw output_error(path, "write failed", e);
        }
    };
    if (exists && !S_ISREG(st.st_mode)) {
        const int fd = ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) throw output_error(path, "open failed", errno);
        ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
        write_all(fd, path);
        if (::close(fd) != 0) throw output_error(path, "close failed", errno);
        return;
    }
    std::string tmp = path + ".tmp-XXXXXX";
    const int fd = ::mkstemp(tmp.data());
    if (fd < 0) throw output_error(path, "cannot create a file beside it", errno);
    // mkstemp creates 0600; give the file the mode an ordinary create would (or the old file's).
    const mode_t mask = ::umask(0);
    ::umask(mask);
    ::fchmod(fd, exists ? (st.st_mode & 07777) : (0666 & ~mask));
    write_all(fd, tmp);
    if (::fsync(fd) != 0 && errno != EINVAL) {
        const int e = errno;
        ::close(fd);
        ::unlink(tmp.c_str());
        throw output_error(path, "sync failed", e);
    }
    if (::close(fd) != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        throw output_error(path, "close failed", e);
    }
    if (::rename(tmp.c_str(), path.c_str()) != 0) {
        const int e = errno;
        ::unlink(tmp.c_str());
        throw output_error(path, "rename failed", e);
    }
}

namespace {
int (*g_rename)(const char*, const char*) = ::rename;

// Writes `data` to the new file `path` inside write_files' private temporary directory: no one
// else opens it, so it needs neither a temporary name of its own nor a sync of its own (the set
// is synced once, sync_files). Throws the output error at `path`.
void write_new_file(const std::string& path, std::string_view data) {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);  // less the umask
    if (fd < 0) throw output_error(path, "cannot create the file", errno, "--output");
    if (const int e = write_fully(fd, data); e != 0) {
        ::close(fd);
        throw output_error(path, "write failed", e, "--output");
    }
    if (::close(fd) != 0) throw output_error(path, "close failed", errno, "--output");
}

// Puts every file written into `tmp` on disk before any is renamed into place: one syncfs of
// the directory's file system, not an fsync a file (a thousand variants are two thousand files,
// and two thousand fsyncs took 6 s of wall time on 2.7 s of CPU). Where syncfs is missing or
// fails, each file is synced, so the set is on disk either way; returns 0 or the errno.
int sync_files(const std::string& tmp, const std::vector<std::pair<std::string, std::string>>& files) {
    const int dir = ::open(tmp.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir < 0) return errno;
#ifdef __linux__
    if (::syncfs(dir) == 0) {
        ::close(dir);
        return 0;
    }
#endif
    int failed = 0;
    for (const auto& f : files) {
        const int fd = ::openat(dir, f.first.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0 || (::fdatasync(fd) != 0 && errno != EINVAL)) failed = failed != 0 ? failed : errno;
        if (fd >= 0) ::close(fd);
    }
    ::close(dir);
    return failed;
}

// The renames into `dir` made durable: one fsync of the directory (best effort: the files are
// complete whether or not it succeeds, and a directory that cannot be synced is no error).
void sync_directory(const std::string& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    (void)::fsync(fd);
    ::close(fd);
}
// The complete files in `tmp` renamed into `dir`, with write_files' guarantee; `abandon(tmp)`
// removes the temporary directory (and `dir` when write_files created it).
void swap_into_place(const std::string& dir, const std::string& tmp,
                     const std::vector<std::pair<std::string, std::string>>& files,
                     const std::function<void(const std::string&)>& abandon) {
    namespace fs = std::filesystem;
    std::error_code ec;
    // All or nothing: the files of an earlier set that this one replaces are first moved aside
    // into the temporary directory, then the new ones renamed in; a rename that fails part way
    // takes the new ones out and puts the old ones back, so the directory holds the old set
    // or the new one, never neither (a rename within one directory is atomic).
    const fs::path old_dir = fs::path(tmp) / ".old";
    std::vector<std::size_t> moved_aside, moved_in;
    const auto undo = [&](const std::string& dest, const char* what, int e) {
        std::error_code ignored;
        for (auto i : moved_in) fs::remove(fs::path(dir) / files[i].first, ignored);
        bool restored = true;
        for (auto i : moved_aside)
            restored = g_rename((old_dir / std::to_string(i)).c_str(), (fs::path(dir) / files[i].first).c_str()) == 0 &&
                       restored;
        if (restored) abandon(tmp);  // else the earlier files stay in tmp rather than be lost
        return output_error(dest, what, e, "--output");
    };
    if (!fs::create_directory(old_dir, ec)) {
        const int e = ec ? ec.value() : EEXIST;
        abandon(tmp);
        throw output_error(dir, "cannot create a temporary directory in it", e, "--output");
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string dest = (fs::path(dir) / files[i].first).string();
        struct stat st {};
        if (::lstat(dest.c_str(), &st) != 0) continue;  // nothing to keep
        if (g_rename(dest.c_str(), (old_dir / std::to_string(i)).c_str()) != 0)
            throw undo(dest, "cannot move the earlier file aside", errno);
        moved_aside.push_back(i);
    }
    for (std::size_t i = 0; i < files.size(); ++i) {
        const std::string dest = (fs::path(dir) / files[i].first).string();
        if (g_rename((fs::path(tmp) / files[i].first).c_str(), dest.c_str()) != 0)
            throw undo(dest, "rename failed", errno);
        moved_in.push_back(i);
    }
    fs::remove_all(old_dir, ec);
    fs::remove(tmp, ec);
}

}  // namespace

void set_rename_for_testing(int (*rename)(const char*, const char*)) {
    g_rename = rename != nullptr ? rename : ::rename;
}

// All or nothing: every destination is checked first (a directory cannot be replaced by a
// file), the files are written into a fresh temporary directory inside DIR, and only when all
// of them are complete and on disk are they renamed into place. A failure removes the temporary
// directory (and DIR when this call created it), so it leaves no file of the set behind.
void write_files(const std::string& dir, const std::vector<std::pair<std::string, std::string>>& files, Delivery& d) {
    d.warnings.refuse();
    namespace fs = std::filesystem;
    std::error_code ec;
    const bool existed = fs::exists(dir, ec);
    fs::create_directories(dir, ec);
    if (ec || !fs::is_directory(dir)) {
        throw output_error(dir, "cannot create the directory", ec ? ec.value() : ENOTDIR, "--output");
    }
    const auto abandon = [&](const std::string& tmp) {
        std::error_code ignored;
        if (!tmp.empty()) fs::remove_all(tmp, ignored);
        if (!existed) fs::remove(dir, ignored);  // only if empty: nothing of the caller's is removed
    };
    for (const auto& f : files) {
        const std::string dest = (fs::path(dir) / f.first).string();
        struct stat st {};
        if (::stat(dest.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
            abandon("");
            throw output_error(dest, "it is a directory", EISDIR, "--output");
        }
    }
    std::string tmp = (fs::path(dir) / ".exactattn-XXXXXX").string();
    if (::mkdtemp(tmp.data()) == nullptr) {
        const int e = errno;
        abandon("");
        throw output_error(dir, "cannot create a temporary directory in it", e, "--output");
    }
    try {
        for (const auto& [name, text] : files) write_new_file((fs::path(tmp) / name).string(), text);
        if (const int e = sync_files(tmp, files); e != 0) throw output_error(tmp, "sync failed", e, "--output");
    } catch (const Error& e) {
        abandon(tmp);
        // Placed at the destination, not at the temporary directory the caller never named.
        std::string reason = e.reason();
        const auto at = reason.find(tmp);
        if (at != std::string::npos) reason.replace(at, tmp.size(), dir);
        throw Error(e.kind(), e.where(), reason);
    } catch (...) {
        abandon(tmp);
        throw;
    }
    swap_into_place(dir, tmp, files, abandon);
    sync_directory(dir);
    d.directory_written = true;
}

}  // namespace exactattn::cli
