/* The lab's state directory: the embedded libvirt's root, the KVM verdict cache, the history
 * index, labd's queue, the variants `lab run --kernel` writes. */
#pragma once
#include <stddef.h>

/* The default: $LAB_STATE_DIR, $XDG_STATE_HOME/numalab, ~/.local/state/numalab, else
 * /var/lib/numalab (no home: a system service).  Always 0. */
int statedir_default(char *buf, size_t len);
