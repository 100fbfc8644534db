;;; agent-shell.el --- drive agent-shell in batch against the agent, dumping the shell buffer  -*- lexical-binding: t; -*-
;;   OUT=/tmp/as.txt AGENT=/path/to/.venv/bin/acp STEPS=ask,plan EL=/tmp/editors/el \
;;     emacs --batch -Q -l tests/editors_by_hand/agent-shell.el
;; EL holds acp/, shell-maker/ and agent-shell/.  The agent's model comes from the environment
;; (OPENAI_BASE_URL ...; scripted_model.py).  Each dump shows the buffer's text as drawn
;; (invisible, folded text left out), then the folded parts' full text.
(require 'cl-lib)
(let ((el (or (getenv "EL") "/tmp/editors/el")))
  (dolist (d '("acp" "shell-maker" "agent-shell"))
    (add-to-list 'load-path (expand-file-name d el))))
(require 'agent-shell)
(setq agent-shell-show-config-icons nil)

(defvar drive-out (or (getenv "OUT") "/tmp/as.txt"))
(with-temp-file drive-out (insert ""))
(defun drive-say (s) (append-to-file (concat s "\n") nil drive-out))

(defvar drive-config
  (agent-shell-make-agent-config
   :identifier 'reasonix
   :mode-line-name "Reasonix"
   :buffer-name "Reasonix"
   :shell-prompt "Reasonix> "
   :shell-prompt-regexp "Reasonix> "
   :client-maker (lambda (buffer)
                   (acp-make-client :command (getenv "AGENT")
                                    :command-params '()
                                    :context-buffer buffer))))

(defvar drive-buf nil)

(defun drive-wait (pred &optional secs)
  (let ((end (+ (float-time) (or secs 60))))
    (while (and (not (funcall pred)) (< (float-time) end))
      (accept-process-output nil 0.05))
    (let ((end2 (+ (float-time) 0.5)))
      (while (< (float-time) end2) (accept-process-output nil 0.05)))))

(defun drive-permission-p ()
  (with-current-buffer drive-buf
    (save-excursion
      (goto-char (point-min))
      (text-property-search-forward 'button 'permission #'eq))))

(defun drive-settle (&optional secs)
  (drive-wait (lambda () (or (drive-permission-p)
                             (not (with-current-buffer drive-buf (shell-maker-busy)))))
              secs))

(defun drive-visible ()
  (with-current-buffer drive-buf
    (let ((pos (point-min)) (out '()))
      (while (< pos (point-max))
        (let ((next (next-single-char-property-change pos 'invisible nil (point-max))))
          (unless (invisible-p pos)
            (push (buffer-substring-no-properties pos next) out))
          (setq pos next)))
      (apply #'concat (nreverse out)))))

(defun drive-dump (label)
  (drive-say (format "==== %s ====" label))
  (drive-say (drive-visible))
  (drive-say (format "==== %s (full text, folded parts included) ====" label))
  (drive-say (with-current-buffer drive-buf (buffer-substring-no-properties (point-min) (point-max)))))

(defun drive-usage (label)
  (drive-say (format "==== %s: usage ====" label))
  (drive-say (with-current-buffer drive-buf
               (let ((usage (map-elt (agent-shell--state) :usage)))
                 (if (agent-shell--usage-has-data-p usage)
                     (agent-shell--format-usage usage t)
                   (format "%S" usage))))))

(defun drive-send (text)
  (with-current-buffer drive-buf
    (goto-char (point-max))
    (insert text)
    (agent-shell-submit))
  (drive-wait (lambda () t) 1)
  (drive-settle))

(defun drive-press (name)
  "Press the permission button whose text holds NAME (the last one in the buffer)."
  (with-current-buffer drive-buf
    (goto-char (point-max))
    (let ((found nil))
      (while (and (not found) (search-backward name nil t))
        (when (eq (get-text-property (point) 'button) 'permission)
          (setq found (point))))
      (if (not found)
          (drive-say (format "-- no button %s" name))
        (drive-say (format "-- pressing %s" name))
        (funcall (lookup-key (get-text-property found 'keymap) (kbd "RET"))))))
  (drive-wait (lambda () t) 1)
  (drive-settle))

(setq drive-buf (agent-shell-start :config drive-config))
(drive-wait (lambda () (with-current-buffer drive-buf
                         (map-nested-elt (agent-shell--state) '(:session :id))))
            60)
(drive-say (format "-- session %s" (with-current-buffer drive-buf
                                      (map-nested-elt (agent-shell--state) '(:session :id)))))

(dolist (step (split-string (or (getenv "STEPS") "ask") ","))
  (pcase step
    ("ask"
     (drive-send "Pick a colour for me @@ASK") (drive-dump "ask: question")
     (drive-send "2") (drive-dump "ask: answered 2"))
    ("plan"
     (with-current-buffer drive-buf
       (agent-shell--config-option-set-mode-id
        :mode-id "plan" :on-success (lambda (&rest _) (drive-say "-- mode plan"))))
     (drive-wait (lambda () nil) 2)
     (drive-send "Plan the colour change @@PLAN") (drive-dump "plan: question")
     (drive-press "Stay in plan mode") (drive-dump "plan: stayed")
     (drive-send "Plan it again @@PLAN") (drive-dump "plan: asked again")
     (drive-press "Start in normal mode") (drive-dump "plan: started"))
    ("bg"
     (drive-send "Start the ticker @@BG") (drive-dump "bg: question")
     (drive-press "Allow (y)") (drive-dump "bg: accepted"))
    ("cmd"
     (drive-send "Make the build folder @@CMD") (drive-dump "cmd: question")
     (drive-press "commands for this session (!)") (drive-dump "cmd: always")
     (drive-send "Again @@CMD") (drive-dump "cmd: second time"))
    ("task"
     (drive-send "Read the notes with a subagent @@TASK") (drive-dump "task"))
    ("compact"
     (drive-usage "before compact")
     (drive-send "/compact") (drive-dump "compact") (drive-usage "after compact")
     (drive-send "/status") (drive-dump "status"))))
(drive-dump "final")
(kill-emacs 0)
