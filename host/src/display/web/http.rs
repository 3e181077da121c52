//! The live page's HTTP plumbing, apart from what it serves: the connection limits (in all
//! and per address, an IPv6 /56 as one), the 503 a refused client gets, the bounded send
//! buffer, and the stream whose writes fail once blocked for [`WRITE_STALL`]. The server is
//! [`crate::display::web::live_page`].

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};

/// Most connections open at once.
pub const MAX_CONNECTIONS: usize = 32;
/// A response that cannot be written for this long closes its connection.
pub const WRITE_STALL: Duration = Duration::from_secs(10);
/// Kernel send buffer of a connection, bytes: with [`WRITE_STALL`], what one client that
/// does not read can hold.
pub(crate) const SEND_BUFFER: usize = 64 * 1024;
/// Why a connection is refused.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Refusal {
    /// [`MAX_CONNECTIONS`] are open.
    Full,
    /// The per-address limit (this many) is open from the client's address.
    Address(usize),
}

/// The address a connection counts against: an IPv4 address (also when mapped into IPv6),
/// or an IPv6 address's /56 (one client usually has a /64 and often a /56 or a /48: a
/// /64 apiece let one client open four times the limit).
pub(crate) fn address_key(ip: std::net::IpAddr) -> std::net::IpAddr {
    use std::net::{IpAddr, Ipv6Addr};
    match ip {
        IpAddr::V4(_) => ip,
        IpAddr::V6(v6) => match v6.to_ipv4_mapped() {
            Some(v4) => IpAddr::V4(v4),
            None => IpAddr::V6(Ipv6Addr::from(u128::from(v6) & !(u128::MAX >> 56))),
        },
    }
}

/// The connections open from each address, and the most one may have open
/// ([`LivePageOptions::per_address`]).
#[derive(Clone)]
pub(crate) struct PerAddress {
    pub(crate) counts: Arc<Mutex<std::collections::HashMap<std::net::IpAddr, usize>>>,
    pub(crate) limit: usize,
}

/// One connection counted against its address, until dropped.
pub(crate) struct AddressSlot {
    counts: PerAddress,
    address: std::net::IpAddr,
}

impl PerAddress {
    /// Counts a connection from `address`, unless the limit is open from it.
    pub(crate) fn take(&self, address: std::net::IpAddr) -> Result<AddressSlot, Refusal> {
        let mut counts = self.counts.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let n = counts.entry(address).or_default();
        if *n >= self.limit {
            return Err(Refusal::Address(self.limit));
        }
        *n += 1;
        Ok(AddressSlot { counts: self.clone(), address })
    }
}

impl Drop for AddressSlot {
    fn drop(&mut self) {
        let mut counts = self.counts.counts.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(n) = counts.get_mut(&self.address) {
            *n -= 1;
            if *n == 0 {
                counts.remove(&self.address);
            }
        }
    }
}

/// Tells a client refused (past [`MAX_CONNECTIONS`], or [`MAX_PER_ADDRESS`] from its
/// address) so, and closes.
pub(crate) async fn refuse(mut stream: tokio::net::TcpStream, why: Refusal) {
    use tokio::io::AsyncWriteExt as _;
    let body = match why {
        Refusal::Full => format!("too many connections (at most {MAX_CONNECTIONS})\n"),
        Refusal::Address(n) => format!("too many connections from your address (at most {n})\n"),
    };
    let reply = format!(
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; charset=utf-8\r\ncontent-length: {}\r\nretry-after: 5\r\nconnection: close\r\n\r\n{body}",
        body.len()
    );
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.write_all(reply.as_bytes())).await;
    let _ = tokio::time::timeout(Duration::from_secs(1), stream.shutdown()).await;
}

/// Bounds the kernel's send buffer of a connection ([`SEND_BUFFER`]).
pub(crate) fn set_send_buffer(stream: &tokio::net::TcpStream) {
    use std::os::fd::AsRawFd as _;
    let size = SEND_BUFFER as libc::c_int;
    // SAFETY: a valid socket descriptor, and a pointer to an int of the size given.
    let _ = unsafe {
        libc::setsockopt(
            stream.as_raw_fd(),
            libc::SOL_SOCKET,
            libc::SO_SNDBUF,
            (&raw const size).cast(),
            std::mem::size_of::<libc::c_int>() as libc::socklen_t,
        )
    };
}
/// A connection whose writes fail once they have been blocked for [`WRITE_STALL`] (a
/// client that stopped reading).
pub(crate) struct Stalls {
    inner: tokio::net::TcpStream,
    blocked: Option<Pin<Box<tokio::time::Sleep>>>,
}

impl Stalls {
    pub(crate) fn new(inner: tokio::net::TcpStream) -> Stalls {
        Stalls { inner, blocked: None }
    }

    fn check<T>(&mut self, cx: &mut Context<'_>, poll: Poll<std::io::Result<T>>) -> Poll<std::io::Result<T>> {
        match poll {
            Poll::Ready(r) => {
                self.blocked = None;
                Poll::Ready(r)
            }
            Poll::Pending => {
                let timer = self.blocked.get_or_insert_with(|| Box::pin(tokio::time::sleep(WRITE_STALL)));
                match timer.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(std::io::Error::new(
                        std::io::ErrorKind::TimedOut,
                        "the client has not read for too long",
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

impl AsyncRead for Stalls {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for Stalls {
    fn poll_write(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.inner).poll_write(cx, buf);
        self.check(cx, poll)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        let poll = Pin::new(&mut self.inner).poll_flush(cx);
        self.check(cx, poll)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_ipv6_56_is_one_address() {
        let key = |s: &str| address_key(s.parse().unwrap());
        // Four /64s of one /56 (a client's usual delegation): one address.
        assert_eq!(key("2001:db8:0:100::1"), key("2001:db8:0:1ff::2"));
        assert_eq!(key("2001:db8:0:100::1"), key("2001:db8:0:1a0:ffff::9"));
        // Another /56: another address.
        assert_ne!(key("2001:db8:0:100::1"), key("2001:db8:0:200::1"));
        assert_eq!(key("::ffff:127.0.0.2"), key("127.0.0.2"));
    }
}
