// The ioctl recording rule.
//
// Most requests carry their own description (<asm-generic/ioctl.h>): bits
// 30-31 are the direction, 16-29 the size of the argument struct, 8-15 a
// "type" byte naming the driver. A request with the _IOC_READ bit makes the
// kernel copy _IOC_SIZE bytes out to the argument, so those bytes are what
// the trace must hold; a _IOC_WRITE-only or _IOC_NONE request only reads.
//
// That is not the whole story:
// - the older families (terminals 'T', sockets 0x89, block devices 0x12,
//   FIBMAP/FIGETBSZ 0x00, consoles 'K'/'V', ...) predate the encoding: their
//   numbers look like _IO() but many of them write. They get explicit rows
//   below; one of those families that is not in the table is "Unknown", and
//   the recorder stops if such a call succeeds (a failure wrote nothing).
// - a few encoded requests write more than _IOC_SIZE (a header followed by
//   an array the header sizes), or write through pointers held inside the
//   argument (DRM, usbdevfs, ALSA frame transfers): explicit rows again.
//   That list cannot be complete; it names the known offenders.
// - a request that writes fewer bytes than its encoding says (FS_IOC_GETFLAGS
//   is _IOR('f', 1, long) but writes an int) is recorded whole: recording
//   bytes the call left unchanged is harmless, replay writes back the same.
#include "engine/record/ioctl_table.h"

#include <asm/termbits.h>
#include <linux/blkpg.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/hdreg.h>
#include <linux/if_tun.h>
#include <linux/input.h>
#include <linux/kd.h>
#include <linux/loop.h>
#include <linux/nsfs.h>
#include <linux/serial.h>
#include <linux/sockios.h>
#include <linux/usbdevice_fs.h>
#include <linux/vt.h>
#include <net/if.h>
#include <net/if_arp.h>
#include <sound/asound.h>
#include <sys/ioctl.h>
#include <sys/time.h>

#include <cstdio>
#include <unordered_map>

namespace backstep::ioctl {
namespace {

constexpr Rule none() { return {Output::None, 0, ""}; }
constexpr Rule bytes(uint32_t n) { return {Output::Fixed, n, ""}; }
constexpr Rule refused(const char* why) { return {Output::Refused, 0, why}; }

const char* const kNested = "it writes through pointers inside its argument";
constexpr uint32_t kDrmType = 'd';  // DRM: version strings, mode arrays... behind pointers

// Requests the encoding does not describe (or describes wrongly).
const std::unordered_map<uint32_t, Rule>& table() {
  static const std::unordered_map<uint32_t, Rule> rows = {
      // Terminals (<asm-generic/ioctls.h>); the kernel's struct termios.
      {TCGETS, bytes(sizeof(struct termios))}, {TCSETS, none()}, {TCSETSW, none()}, {TCSETSF, none()},
      {TCGETA, bytes(sizeof(struct termio))}, {TCSETA, none()}, {TCSETAW, none()}, {TCSETAF, none()},
      {TCSBRK, none()}, {TCXONC, none()}, {TCFLSH, none()}, {TIOCEXCL, none()}, {TIOCNXCL, none()},
      {TIOCSCTTY, none()}, {TIOCGPGRP, bytes(sizeof(pid_t))}, {TIOCSPGRP, none()},
      {TIOCOUTQ, bytes(sizeof(int))}, {TIOCSTI, none()}, {TIOCGWINSZ, bytes(sizeof(struct winsize))},
      {TIOCSWINSZ, none()}, {TIOCMGET, bytes(sizeof(int))}, {TIOCMBIS, none()}, {TIOCMBIC, none()},
      {TIOCMSET, none()}, {TIOCGSOFTCAR, bytes(sizeof(int))}, {TIOCSSOFTCAR, none()},
      {FIONREAD, bytes(sizeof(int))}, {TIOCCONS, none()}, {TIOCGSERIAL, bytes(sizeof(struct serial_struct))},
      {TIOCSSERIAL, none()}, {TIOCPKT, none()}, {FIONBIO, none()}, {TIOCNOTTY, none()},
      {TIOCSETD, none()}, {TIOCGETD, bytes(sizeof(int))}, {TCSBRKP, none()}, {TIOCSBRK, none()},
      {TIOCCBRK, none()}, {TIOCGSID, bytes(sizeof(pid_t))},
      {TIOCGRS485, bytes(sizeof(struct serial_rs485))},
      {TIOCSRS485, bytes(sizeof(struct serial_rs485))},  // writes back what the driver accepted
      {TIOCVHANGUP, none()}, {TIOCGPTPEER, none()},  // TIOCGPTPEER returns a descriptor
      {FIONCLEX, none()}, {FIOCLEX, none()}, {FIOASYNC, none()},
      {TIOCSERCONFIG, none()}, {TIOCSERGWILD, bytes(sizeof(int))}, {TIOCSERSWILD, none()},
      {TIOCGLCKTRMIOS, bytes(sizeof(struct termios))}, {TIOCSLCKTRMIOS, none()},
      {TIOCSERGETLSR, bytes(sizeof(unsigned))}, {TIOCMIWAIT, none()},
      {TIOCGICOUNT, bytes(sizeof(struct serial_icounter_struct))}, {FIOQSIZE, bytes(sizeof(loff_t))},
      // Consoles (<linux/vt.h>, <linux/kd.h>).
      {VT_OPENQRY, bytes(sizeof(int))}, {VT_GETMODE, bytes(sizeof(struct vt_mode))}, {VT_SETMODE, none()},
      {VT_GETSTATE, bytes(sizeof(struct vt_stat))}, {VT_SENDSIG, none()}, {VT_RELDISP, none()},
      {VT_ACTIVATE, none()}, {VT_WAITACTIVE, none()}, {VT_DISALLOCATE, none()}, {VT_RESIZE, none()},
      {VT_RESIZEX, none()}, {VT_LOCKSWITCH, none()}, {VT_UNLOCKSWITCH, none()},
      {VT_GETHIFONTMASK, bytes(sizeof(unsigned short))}, {VT_WAITEVENT, bytes(sizeof(struct vt_event))},
      {VT_SETACTIVATE, none()}, {KDGETMODE, bytes(sizeof(int))}, {KDSETMODE, none()},
      {KDGKBTYPE, bytes(1)}, {KDGETLED, bytes(1)}, {KDGKBLED, bytes(1)}, {KDGKBMODE, bytes(sizeof(int))},
      {KDSKBMODE, none()}, {KDGKBMETA, bytes(sizeof(int))},
      // Sockets (<linux/sockios.h>); struct ifreq is 40 bytes.
      {FIOSETOWN, none()}, {SIOCSPGRP, none()}, {FIOGETOWN, bytes(sizeof(int))},
      {SIOCGPGRP, bytes(sizeof(int))}, {SIOCATMARK, bytes(sizeof(int))},
      {SIOCGSTAMP_OLD, bytes(sizeof(struct timeval))}, {SIOCGSTAMPNS_OLD, bytes(sizeof(struct timespec))},
      {SIOCADDRT, none()}, {SIOCDELRT, none()}, {SIOCGIFCONF, {Output::Ifconf, 0, ""}},
      {SIOCGIFNAME, bytes(sizeof(struct ifreq))}, {SIOCGIFFLAGS, bytes(sizeof(struct ifreq))},
      {SIOCGIFADDR, bytes(sizeof(struct ifreq))}, {SIOCGIFDSTADDR, bytes(sizeof(struct ifreq))},
      {SIOCGIFBRDADDR, bytes(sizeof(struct ifreq))}, {SIOCGIFNETMASK, bytes(sizeof(struct ifreq))},
      {SIOCGIFMETRIC, bytes(sizeof(struct ifreq))}, {SIOCGIFMEM, bytes(sizeof(struct ifreq))},
      {SIOCGIFMTU, bytes(sizeof(struct ifreq))}, {SIOCGIFENCAP, bytes(sizeof(struct ifreq))},
      {SIOCGIFHWADDR, bytes(sizeof(struct ifreq))}, {SIOCGIFSLAVE, bytes(sizeof(struct ifreq))},
      {SIOCGIFINDEX, bytes(sizeof(struct ifreq))}, {SIOCGIFPFLAGS, bytes(sizeof(struct ifreq))},
      {SIOCGIFCOUNT, bytes(sizeof(struct ifreq))}, {SIOCGIFTXQLEN, bytes(sizeof(struct ifreq))},
      {SIOCGIFMAP, bytes(sizeof(struct ifreq))}, {SIOCGMIIPHY, bytes(sizeof(struct ifreq))},
      {SIOCGMIIREG, bytes(sizeof(struct ifreq))}, {SIOCSIFLINK, none()}, {SIOCSIFFLAGS, none()},
      {SIOCSIFADDR, none()}, {SIOCSIFDSTADDR, none()}, {SIOCSIFBRDADDR, none()},
      {SIOCSIFNETMASK, none()}, {SIOCSIFMETRIC, none()}, {SIOCSIFMTU, none()}, {SIOCSIFNAME, none()},
      {SIOCSIFHWADDR, none()}, {SIOCSIFENCAP, none()}, {SIOCSIFSLAVE, none()},
      {SIOCADDMULTI, none()}, {SIOCDELMULTI, none()}, {SIOCSIFPFLAGS, none()}, {SIOCDIFADDR, none()},
      {SIOCSIFHWBROADCAST, none()}, {SIOCSIFTXQLEN, none()}, {SIOCSIFMAP, none()},
      {SIOCSMIIREG, none()}, {SIOCOUTQNSD, bytes(sizeof(int))}, {SIOCGSKNS, none()},
      {SIOCDARP, none()}, {SIOCGARP, bytes(sizeof(struct arpreq))}, {SIOCSARP, none()},
      {SIOCBRADDBR, none()}, {SIOCBRDELBR, none()}, {SIOCBRADDIF, none()}, {SIOCBRDELIF, none()},
      {SIOCETHTOOL, refused(kNested)}, {SIOCSHWTSTAMP, refused(kNested)},
      {SIOCGHWTSTAMP, refused(kNested)}, {SIOCWANDEV, refused(kNested)},
      // Block devices and files (<linux/fs.h>).
      {BLKROSET, none()}, {BLKROGET, bytes(sizeof(int))}, {BLKRRPART, none()},
      {BLKGETSIZE, bytes(sizeof(unsigned long))}, {BLKFLSBUF, none()}, {BLKRASET, none()},
      {BLKRAGET, bytes(sizeof(long))}, {BLKFRASET, none()}, {BLKFRAGET, bytes(sizeof(long))},
      {BLKSECTSET, none()}, {BLKSECTGET, bytes(sizeof(unsigned short))}, {BLKSSZGET, bytes(sizeof(int))},
      {BLKPG, none()}, {BLKTRACESTART, none()}, {BLKTRACESTOP, none()}, {BLKTRACETEARDOWN, none()},
      {BLKDISCARD, none()}, {BLKIOMIN, bytes(sizeof(unsigned))}, {BLKIOOPT, bytes(sizeof(unsigned))},
      {BLKALIGNOFF, bytes(sizeof(int))}, {BLKPBSZGET, bytes(sizeof(unsigned))},
      {BLKDISCARDZEROES, bytes(sizeof(unsigned))}, {BLKSECDISCARD, none()},
      {BLKROTATIONAL, bytes(sizeof(unsigned short))}, {BLKZEROOUT, none()},
      {FIBMAP, bytes(sizeof(int))}, {FIGETBSZ, bytes(sizeof(int))},
      {FS_IOC_FIEMAP, {Output::Fiemap, 0, ""}}, {FIDEDUPERANGE, {Output::DedupeRange, 0, ""}},
      {HDIO_GETGEO, bytes(sizeof(struct hd_geometry))}, {HDIO_GET_IDENTITY, bytes(512)},
      {LOOP_SET_FD, none()}, {LOOP_CLR_FD, none()}, {LOOP_SET_STATUS, none()},
      {LOOP_GET_STATUS, bytes(sizeof(struct loop_info))}, {LOOP_SET_STATUS64, none()},
      {LOOP_GET_STATUS64, bytes(sizeof(struct loop_info64))}, {LOOP_CHANGE_FD, none()},
      {LOOP_SET_CAPACITY, none()}, {LOOP_SET_DIRECT_IO, none()}, {LOOP_SET_BLOCK_SIZE, none()},
      {LOOP_CONFIGURE, none()}, {LOOP_CTL_ADD, none()}, {LOOP_CTL_REMOVE, none()},
      {LOOP_CTL_GET_FREE, none()},
      // Encoded, but writing more than or elsewhere than _IOC_SIZE says.
      {EVIOCSFF, bytes(sizeof(struct ff_effect))},  // _IOW, but writes back the effect id
      // TUN/TAP ('T', but encoded): TUNSETIFF is _IOW and TUNGETIFF _IOR of an
      // int, yet both write a whole struct ifreq (the interface's name).
      {TUNSETIFF, bytes(sizeof(struct ifreq))}, {TUNGETIFF, bytes(sizeof(struct ifreq))},
      // Namespaces (<linux/nsfs.h>): _IO, but copies the owner's uid out.
      {NS_GET_OWNER_UID, bytes(sizeof(uid_t))},
      {USBDEVFS_CONTROL, refused(kNested)}, {USBDEVFS_BULK, refused(kNested)},
      {USBDEVFS_REAPURB, refused(kNested)}, {USBDEVFS_REAPURBNDELAY, refused(kNested)},
      {USBDEVFS_IOCTL, refused(kNested)}, {SNDRV_PCM_IOCTL_READI_FRAMES, refused(kNested)},
      {SNDRV_PCM_IOCTL_READN_FRAMES, refused(kNested)},
  };
  return rows;
}

// Type bytes of the families whose numbers predate the encoding: an _IO()
// looking request of these types may well write, so it needs a table row.
bool legacy_type(uint32_t type) {
  switch (type) {
    case 0x00:  // FIBMAP, FIGETBSZ
    case 0x03:  // HDIO_*
    case 0x06:  // LP*
    case 0x12:  // BLK*
    case 0x22:  // SCSI generic
    case 0x46:  // 'F' frame buffers
    case 0x4b:  // 'K' KD* consoles
    case 0x4c:  // 'L' loop devices
    case 0x53:  // 'S' CD-ROM, SCSI
    case 0x54:  // 'T' terminals
    case 0x56:  // 'V' virtual terminals
    case 0x89:  // sockets
    case 0x8b:  // wireless extensions
      return true;
    default:
      return false;
  }
}

}  // namespace

Rule rule_for(uint32_t request) {
  auto it = table().find(request);
  if (it != table().end()) return it->second;
  uint32_t dir = _IOC_DIR(request);
  uint32_t type = _IOC_TYPE(request);
  if (type == kDrmType) return refused(kNested);
  if (dir & _IOC_READ) return bytes(_IOC_SIZE(request));
  if (dir == _IOC_WRITE) return none();
  // _IOC_NONE: a proper _IO() of a modern driver passes nothing to fill.
  if (_IOC_SIZE(request) == 0 && !legacy_type(type)) return none();
  return {Output::Unknown, 0, ""};
}

std::string describe(uint32_t request) {
  char text[96];
  uint32_t dir = _IOC_DIR(request);
  uint32_t type = _IOC_TYPE(request);
  if (dir == _IOC_NONE && (_IOC_SIZE(request) != 0 || legacy_type(type))) {
    std::snprintf(text, sizeof(text), "0x%x", request);
  } else {
    static const char* const names[] = {"_IO", "_IOW", "_IOR", "_IOWR"};
    char t[8];
    if (type >= 0x20 && type < 0x7f) {
      std::snprintf(t, sizeof(t), "'%c'", static_cast<char>(type));
    } else {
      std::snprintf(t, sizeof(t), "0x%x", type);
    }
    std::snprintf(text, sizeof(text), "0x%x (%s(%s, 0x%x, %u bytes))", request, names[dir], t,
                  static_cast<unsigned>(_IOC_NR(request)), static_cast<unsigned>(_IOC_SIZE(request)));
  }
  return text;
}

}  // namespace backstep::ioctl
