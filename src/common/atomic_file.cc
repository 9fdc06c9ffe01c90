#include "common/atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

namespace servebench {

StatusOr<std::string> ReadFile(const std::string& path, size_t max_bytes) {
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return Status::NotFound(path + ": no such file");
  if (std::filesystem::is_directory(path, ec)) {
    return Status::InvalidArgument(path + ": is a directory, expected a file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::NotFound(path + ": cannot open: " + std::strerror(errno));
  in.seekg(0, std::ios::end);
  std::streamoff size = in.tellg();
  if (size < 0) size = 0;
  if (static_cast<size_t>(size) > max_bytes) {
    return Status::InvalidArgument(path + ": file is " + std::to_string(size) +
                                   " bytes; the limit is " + std::to_string(max_bytes));
  }
  in.seekg(0);
  std::string data(static_cast<size_t>(size), '\0');
  in.read(data.data(), size);
  if (!in && !in.eof()) return Status::DataLoss(path + ": read failed");
  return data;
}

Status WriteFileAtomically(const std::string& path, std::string_view contents) {
  std::filesystem::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) {
    std::filesystem::create_directories(target.parent_path(), ec);
    if (ec) return Status::DataLoss(path + ": cannot create folder: " + ec.message());
  }
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return Status::DataLoss(tmp + ": cannot create: " + std::strerror(errno));
  size_t written = 0;
  while (written < contents.size()) {
    ssize_t n = ::write(fd, contents.data() + written, contents.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return Status::DataLoss(path + ": write failed (" + std::strerror(err) +
                              "); the previous file, if any, is unchanged");
    }
    written += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Status::DataLoss(path + ": sync failed (" + std::string(std::strerror(err)) + ")");
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return Status::DataLoss(path + ": rename failed (" + std::string(std::strerror(err)) + ")");
  }
  return Status::Ok();
}

}  // namespace servebench
