/* `lab history alerts`: nightly's alerts and their triage (cmd_history_alerts.c), a verb of
 * `lab history` (cmd_history.c dispatches to it; its help is part of history's). */
#pragma once

int cmd_history_alerts(int argc, char **argv);
void cmd_history_alerts_help(void);
